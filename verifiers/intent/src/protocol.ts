/** What the runtime asks the intent verifier (docs/contract.md#capabilities level 2), and what it answers. */
export interface IntentRequest {
  tenant: string;
  agent: string;
  tool: string;
  version: string;
  effects: "read" | "write" | "delete" | "send";
  /** The caller's context (workflow, correlation id); never the tool's input. */
  context: Record<string, unknown>;
}

export interface IntentVerdict {
  verdict: "aligned" | "misaligned";
  reason: string;
  /** The profile the decision was made against. */
  profile: string;
}
