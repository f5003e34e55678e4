/** Task statuses for both task revisions (tasks.ts), from one pure table. */
import type { ExecutionStatus } from "../contract.ts";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/**
 * Execution status → task status, one table for both revisions. A new status fails the type
 * check until it has a row. An execution that ended `failed` or `timed_out` is, in 2025-11-25,
 * `failed`; in the extension (SEP-2663) it depends on who failed (`taskStatusOf`).
 */
const TASK_STATUS: Record<ExecutionStatus, readonly [modern: TaskStatus, legacy: TaskStatus]> = {
  // Waiting for a person with the approver role to approve it (docs/contract.md#approvals).
  awaiting_approval: ["input_required", "input_required"],
  queued: ["working", "working"],
  scheduled: ["working", "working"],
  running: ["working", "working"],
  succeeded: ["completed", "completed"],
  // `completed` only when the tool itself reported the error (taskStatusOf).
  failed: ["completed", "failed"],
  timed_out: ["completed", "failed"],
  cancelled: ["cancelled", "cancelled"],
};

/**
 * The extension keeps `completed` with an `isError` result for a tool that ran and reported an
 * error (`tool_error`), and `failed`, with the error inlined, for everything else that ended a
 * run without a result: a provider that crashed or could not be reached, a timeout, the
 * runtime's own failure (docs/guide/mcp.md#tasks). `errorCode` is the execution's error code.
 */
export function taskStatusOf(status: ExecutionStatus, era: "modern" | "legacy", errorCode?: string): TaskStatus {
  // A status this table does not know yet (a newer runtime's, read from the index) is still running.
  const [modern, legacy] = Object.hasOwn(TASK_STATUS, status) ? TASK_STATUS[status] : TASK_STATUS.running;
  if (era === "legacy") return legacy;
  return modern === "completed" && status !== "succeeded" && errorCode !== "tool_error" ? "failed" : modern;
}
