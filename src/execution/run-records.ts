/** The records a run starts from and the one a lost run ends with. */
import type { Value } from "../contract.ts";
import { errorBody } from "../errors.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { transition, type ExecutionRecord } from "./record.ts";

/** The record of a plan just accepted (status `queued`). */
export function newRecord(plan: ExecutionPlan, now: number): ExecutionRecord {
  return {
    execution_id: plan.execution_id,
    tenant: plan.tenant,
    agent: plan.agent,
    project: plan.project,
    face: plan.face,
    tool: plan.tool,
    version: plan.version,
    mode: plan.mode,
    status: "queued",
    provider: null,
    timeout_ms: plan.timeout_ms,
    idempotent: plan.idempotent,
    effects: plan.effects,
    capability: plan.capability,
    partial_merge: plan.partial_merge,
    retention_ms: plan.retention_ms,
    accepted_at: plan.accepted_at,
    scheduled_at: null,
    running_at: null,
    ended_at: null,
    attempts: [],
    start_seq: null,
    last_seq: 0,
    params_hash: plan.params_hash,
    trace_id: plan.trace.trace_id,
    correlation_id: plan.correlation_id,
    ...(plan.idempotency
      ? {
          idempotency: {
            key: plan.idempotency.key,
            fingerprint: plan.idempotency.fingerprint,
            expires_at: now + plan.idempotency.ttl_ms,
          },
        }
      : {}),
  };
}

/** Ends a record whose run is gone (its object restarted mid-call): the provider's outcome is unknown. */
export function lostRecord(
  record: ExecutionRecord,
  lastSeq: number,
  partial: Value,
  now = Date.now(),
): ExecutionRecord {
  return transition(record, "failed", now, {
    last_seq: Math.max(record.last_seq, lastSeq),
    ...(partial !== undefined ? { partial_output: partial } : {}),
    error: errorBody(
      "internal",
      "the execution was interrupted by a restart of the runtime; the provider's outcome is unknown",
      { reason: "execution object restarted" },
      false,
    ),
  });
}
