/** Who calls, what they ask for and which execution that makes (docs/contract.md#request, docs/contract.md#initiation). */
import type { Value } from "../../providers/sdk/protocol.ts";

/** Who is calling (docs/contract.md#initiation): set by the runtime from a credential or binding props, never from a body. */
export interface Caller {
  tenant: string;
  agent: string;
  capabilities: string[];
  /** Provider names the caller may reach (docs/contract.md#capabilities level 1); "*" reaches all. */
  channels: string[];
  /** agent (the default; "tenant" is read as agent), tenant_admin, approver or admin: src/auth/roles.ts. */
  role?: string;
  /** An API key's tool bundles: its MCP face shows only their tools (docs/contract.md#bundles); absent: every tool. */
  bundles?: string[];
}

/** The faces a call can come through; recorded in the audit log. */
export type Face = "rest" | "rpc" | "connect" | "mcp";

export type ExecutionMode = "sync" | "async";

/** The request (docs/contract.md#request), after the envelope check. */
export interface ExecutionRequest {
  tool: string;
  version?: string;
  provider?: string;
  tenant?: string;
  project?: string;
  input: Value;
  context: Record<string, Value>;
  limits: { timeout_ms?: number; max_output_bytes?: number };
  /** `dry_run` runs stages 1-4 and reports what would happen (nothing is executed). */
  mode: ExecutionMode | "dry_run";
  stream: boolean;
  idempotency_key?: string;
}

/**
 * Which execution this is: who called which tool, through which face. Written once here and
 * shared by the plan, the execution record, the audit log's entry and `GET /v1/audit`'s record.
 */
export interface ExecutionIdentity {
  execution_id: string;
  tenant: string;
  agent: string;
  /** The request's `project`, as the caller named it (recorded and filterable, never trusted). */
  project: string | null;
  /** The face the call came through. */
  face: Face;
  tool: string;
  version: string;
}
