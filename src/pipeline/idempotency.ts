/**
 * Idempotency keys (docs/contract.md#idempotency). A keyed call's execution object is named by tenant and
 * key, so the object itself is the dedupe point: every duplicate reaches the
 * same object, which runs the call at most once. The fingerprint says whether a duplicate
 * is the same request: same tool, version, provider, input, mode and limits. `stream` is
 * left out: it is how the answer is delivered, not what is asked.
 */
import type { ExecutionRequest } from "../contract.ts";
import { canonicalJson } from "../schema/schema-hash.ts";
import { sha256Hex } from "../schema/sha256.ts";

export async function requestFingerprint(request: ExecutionRequest): Promise<string> {
  const asked = {
    tool: request.tool,
    version: request.version ?? null,
    provider: request.provider ?? null,
    input: request.input,
    mode: request.mode,
    limits: request.limits,
  };
  return sha256Hex(canonicalJson(asked));
}
