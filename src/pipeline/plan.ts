/**
 * Stages 1-5 composed: from a checked request to a dispatchable plan. Every face (REST now;
 * RPC and Connect later) goes through here, so each has the same semantics (TRT-002 §1).
 */
import type { ExecutionRequest } from "../contract.ts";
import { loadConfig } from "../config.ts";
import type { Env } from "../env.ts";
import { RuntimeError } from "../errors.ts";
import { rankProviders } from "../registry/rank.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { effectiveTimeoutMs } from "./budget.ts";
import { checkToolCapability, reachableOfferings, type Caller } from "./capability.ts";
import { newExecutionId, type ExecutionPlan } from "./dispatch.ts";
import { resolveTool } from "./lookup.ts";
import { validateInput } from "./schema.ts";

/** Default cap on a tool's output (TRT-002 §4 `limits.max_output_bytes`). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

export async function planExecution(
  env: Env,
  caller: Caller,
  request: ExecutionRequest,
  acceptedAt: number,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<ExecutionPlan> {
  refuseUnsupported(request);
  if (request.tenant !== undefined && request.tenant !== caller.tenant) {
    // The credential decides the tenant; the body may only repeat it.
    throw new RuntimeError("forbidden", "field tenant does not match the caller's tenant", { field: "tenant" });
  }
  const config = loadConfig(env);

  // Stage 2: lookup.
  const snapshot = await getSnapshot(env, waitUntil);
  const resolved = resolveTool(snapshot, request.tool, request.version, request.provider);

  // Stage 3: level 1 filters, then AIOS §5.2.1 ranks what is left; level 3 on the choice.
  const reachable = reachableOfferings(caller, resolved.offerings, request.provider);
  const ranked = rankProviders(reachable, { explicit: request.provider });
  const chosen = ranked[0].offering;
  const level3 = checkToolCapability(caller, chosen.manifest.capability_required, request.input);

  // Stage 4: schema.
  const input = validateInput(request.input, {
    hash: chosen.input_hash,
    schema: chosen.manifest.input_schema,
    coercion: chosen.manifest.coercion,
  });

  // Stage 5: the plan the execution object dispatches.
  const timeout = effectiveTimeoutMs({
    requestedMs: request.limits.timeout_ms,
    latencyClass: chosen.manifest.latency_class,
    toolMaxMs: chosen.manifest.max_timeout_ms,
    systemMaxMs: config.systemMaxTimeoutMs,
  });
  return {
    execution_id: newExecutionId(env),
    tenant: caller.tenant,
    agent: caller.agent, // AIOS §5.1: set by the runtime, never by the body (context.agent is only context)
    tool: resolved.tool.name,
    version: resolved.version,
    mode: request.mode,
    providers: ranked.map((r) => ({ provider: r.offering.provider, binding: r.offering.binding })),
    input,
    context: request.context,
    timeout_ms: timeout.timeout_ms,
    accepted_at: acceptedAt,
    output_hash: chosen.output_hash,
    max_output_bytes: Math.min(request.limits.max_output_bytes ?? DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_MAX_OUTPUT_BYTES),
    idempotent: chosen.manifest.idempotent,
    effects: chosen.manifest.effects,
    capability: {
      level1: { reachable: reachable.map((o) => o.provider) },
      level2: { verdict: "skipped", reason: "no intent verifier is bound" },
      level3,
    },
    retention_ms: config.retentionMs,
  };
}

/** Parts of TRT-002 §4 not built yet are refused out loud rather than silently ignored. */
function refuseUnsupported(request: ExecutionRequest): void {
  if (request.idempotency_key !== undefined) {
    throw new RuntimeError("invalid_request", "idempotency_key is not available yet; the call was not made", { field: "idempotency_key" });
  }
}
