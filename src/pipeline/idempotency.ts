/**
 * Idempotency keys (TRT-002 §11). A keyed call's execution object is named by tenant and
 * key (DESIGN.md 7), so the object itself is the dedupe point: every duplicate reaches the
 * same object, which runs the call at most once. The fingerprint says whether a duplicate
 * is the same request: same tool, version, provider, input, mode and limits. `stream` is
 * left out: it is how the answer is delivered, not what is asked.
 */
import type { ExecutionRequest } from "../contract.ts";
import type { Env } from "../env.ts";
import { canonicalJson } from "../schema/schema-hash.ts";

export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
  /** How long the key stays bound to its execution after it was first used. */
  ttl_ms: number;
}

export async function requestFingerprint(request: ExecutionRequest): Promise<string> {
  const asked = {
    tool: request.tool,
    version: request.version ?? null,
    provider: request.provider ?? null,
    input: request.input,
    mode: request.mode,
    limits: request.limits,
  };
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonicalJson(asked))));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The execution id every use of this key by this tenant maps to. */
export function keyedExecutionId(env: Env, tenant: string, key: string): string {
  // A separator that cannot occur in a tenant name keeps ("a", "b:c") and ("a:b", "c") apart.
  return `exec_${env.EXECUTIONS.idFromName(`${tenant}\u0000${key}`).toString()}`;
}
