/**
 * Executions that wait (docs/contract.md#waiting), the rules, pure: how long each wait may last, how a wait that
 * runs out ends, and what ending before the start looks like. Anything that waits, waits in its
 * ExecutionObject (durable-objects/execution-object.ts), which applies these.
 *
 *   awaiting_approval  until a person decides, at most the tenant's approval window
 *   queued             until one of its tenant's slots is free (the TenantObject's queue)
 *   scheduled          until its provider has room (the provider's gate)
 *
 * A sync caller waits for all of it, so every wait counts against its budget (docs/contract.md#budgets); an
 * async call's budget starts when it runs, and its wait for a slot or room is bounded by the
 * tenant's `max_wait_ms` instead.
 */
import type { ErrorBody, Value } from "../contract.ts";
import { errorBody } from "../errors.ts";
import { remainingBudgetMs } from "../pipeline/budget.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { transition, type ExecutionRecord } from "./record.ts";
import { SHED_RETRY_MS, shedBelowMs } from "./shed.ts";

/** A sync call with less budget than this left does not wait: it is refused at once as before. */
export const SYNC_WAIT_MIN_MS = 1_000;

/** May this call wait for a slot or for room, rather than be refused? */
export function mayWait(plan: ExecutionPlan, now: number): boolean {
  return plan.mode === "async" || remainingBudgetMs(plan.timeout_ms, plan.accepted_at, now) >= SYNC_WAIT_MIN_MS;
}

/** When a sync call must be running by, or be shed (src/execution/shed.ts). */
function syncDeadline(plan: ExecutionPlan): number {
  return plan.accepted_at + plan.timeout_ms - shedBelowMs(plan.timeout_ms);
}

/** When the approval window of a call accepted `now` ends (a sync caller's budget may end it sooner). */
export function approvalExpiry(plan: ExecutionPlan, windowMs: number, now: number): number {
  return plan.mode === "sync" ? Math.min(now + windowMs, syncDeadline(plan)) : now + windowMs;
}

/** When the current wait of a waiting record ends. */
export function waitEndsAt(record: ExecutionRecord, plan: ExecutionPlan): number {
  if (record.status === "awaiting_approval") return record.approval!.expires_at;
  if (plan.mode === "sync") return syncDeadline(plan);
  const since = record.approval?.decision ? Date.parse(record.approval.decision.at) : record.accepted_at;
  return since + plan.limits.max_wait_ms;
}

/** The error a wait that ran out ends with: nobody approved in time, or no slot or room came. */
export function waitExpiredError(record: ExecutionRecord, plan: ExecutionPlan, now: number): ErrorBody {
  if (record.status === "awaiting_approval") {
    return errorBody("approval_expired", "nobody approved the call within its approval window; it never ran", {
      rule: record.approval!.rule,
      expired_at: new Date(record.approval!.expires_at).toISOString(),
    });
  }
  const what = record.status === "queued" ? "a free slot of its tenant" : "room at its provider";
  return errorBody(
    "overloaded",
    `the call waited ${now - record.accepted_at} ms for ${what} and could not be dispatched within its ${plan.mode === "sync" ? "budget" : "wait bound (max_wait_ms)"}; try again`,
    {
      reason: record.status === "queued" ? "queue_wait" : "provider_full",
      waited_ms: now - record.accepted_at,
      retry_after_ms: SHED_RETRY_MS,
    },
  );
}

/** docs/contract.md#cancellation `before_start`: a waiting execution cancelled ends at once; no provider was called. */
export function cancelledBeforeStart(record: ExecutionRecord, now: number): ExecutionRecord {
  return transition(record, "cancelled", now, {
    error: errorBody("cancelled", "the execution was cancelled before it started"),
    cancellation: { requested_at: new Date(now).toISOString(), outcome: "before_start" },
  });
}

/** A waiting execution that ends without running: rejected, expired, refused, or failed inside. */
export function endedBeforeStart(record: ExecutionRecord, error: ErrorBody, now: number): ExecutionRecord {
  return transition(record, "failed", now, { error });
}

/** The `log` event's data that says where a call waits: for its tenant's slot, or for room at `provider`. */
export function waitingNote(
  status: ExecutionRecord["status"],
  position: number | undefined,
  provider?: string,
): Record<string, Value> {
  const where = provider ? `room at provider ${provider}` : "a free slot of its tenant";
  return {
    message: `waiting for ${where}${position ? `, position ${position}` : ""}`,
    waiting: status,
    ...(provider ? { provider } : {}),
    ...(position ? { position } : {}),
  };
}
