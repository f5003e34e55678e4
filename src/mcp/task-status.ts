/** Task statuses for both task revisions (tasks.ts), from one pure table. */
import type { ExecutionStatus } from "../contract.ts";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * Execution status → task status, one table for both revisions. A run that failed is the
 * tool's answer with `isError: true`: `completed` in the extension (SEP-2663 keeps `failed` for
 * JSON-RPC errors), `failed` in 2025-11-25. A new status fails the type check until it has a
 * row.
 */
const TASK_STATUS: Record<ExecutionStatus, readonly [modern: TaskStatus, legacy: TaskStatus]> = {
  // Waiting for a person with the approver role to approve it (docs/contract.md#approvals).
  awaiting_approval: ["input_required", "input_required"],
  queued: ["working", "working"],
  scheduled: ["working", "working"],
  running: ["working", "working"],
  succeeded: ["completed", "completed"],
  failed: ["completed", "failed"],
  timed_out: ["completed", "failed"],
  cancelled: ["cancelled", "cancelled"],
};

export function taskStatusOf(status: ExecutionStatus, era: "modern" | "legacy"): TaskStatus {
  // A status this table does not know yet (a newer runtime's, read from the index) is still running.
  return (Object.hasOwn(TASK_STATUS, status) ? TASK_STATUS[status] : TASK_STATUS.running)[era === "modern" ? 0 : 1];
}
