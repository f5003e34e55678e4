/**
 * Overload is shed, not timed out (docs/contract.md#budgets), so no tenant can take a tool away from another. When
 * the runtime's own work before dispatch — planning, admission, its queues — has used up the
 * budget, the call is refused at once with `overloaded` (503, retryable, Retry-After) instead
 * of reaching the provider with no time left and coming back as `timeout`: `timeout` means
 * the provider ran past its budget, and only that.
 */
import { RuntimeError } from "../errors.ts";
import { remainingBudgetMs } from "../pipeline/budget.ts";
import type { ExecutionPlan } from "./execution-plan.ts";

/** Below this much budget left at dispatch the call is shed. */
export function shedBelowMs(timeoutMs: number): number {
  return Math.max(5, Math.floor(timeoutMs / 10));
}

/** How soon a shed call may try again (Retry-After). */
export const SHED_RETRY_MS = 1_000;

/** Throws `overloaded` when too little of the plan's budget is left to dispatch it. */
export function shedIfLate(plan: ExecutionPlan, now = Date.now()): void {
  const left = remainingBudgetMs(plan.timeout_ms, plan.accepted_at, now);
  if (left < shedBelowMs(plan.timeout_ms)) {
    throw new RuntimeError("overloaded", "the runtime could not dispatch the call within its budget; try again", {
      retry_after_ms: SHED_RETRY_MS,
      budget_left_ms: left,
      timeout_ms: plan.timeout_ms,
    });
  }
}
