/**
 * CPU time per attempt (docs/contract.md#response `resources`), known only after the fact: the platform reports
 * each provider Worker invocation's CPU time to the runtime's tail handler once the invocation
 * has ended (src/audit/tail.ts). Those reports live beside the record, not in it — in the audit
 * store, on the execution's row (or in its `usage` table while the row is not there yet:
 * src/audit/batch-writes.ts; execution objects kept them in their storage until reports moved
 * to the store, and still show those) — and every view and
 * audit record is read through `withUsage`, so a report that arrives before, during or long after
 * the end lands in the same place and no write races the run's own.
 */
import type { AttemptRecord, CpuReport, ExecutionResources, ExecutionView } from "../contract.ts";

/** One provider invocation's report: which attempt, and its CPU time (null: not measured). */
export interface AttemptUsage {
  attempt: number;
  cpu_ms: number | null;
}

/** Attempts numbered past this are not an execution's (the retry engine stops far below it). */
export const MAX_ATTEMPT = 1_000;

/** Each attempt with its reported CPU time; fields a record written before they existed lacks are null. */
export function attemptsWithUsage(attempts: readonly AttemptRecord[], usage: readonly AttemptUsage[]): AttemptRecord[] {
  const byAttempt = new Map(usage.map((u) => [u.attempt, u.cpu_ms]));
  return attempts.map((a) => ({
    ...a,
    provider_latency_ms: a.provider_latency_ms ?? null,
    cpu_ms: byAttempt.get(a.attempt) ?? null,
  }));
}

/** The `resources` block the reports make. */
export function resourcesOf(usage: readonly AttemptUsage[]): ExecutionResources {
  const measured = usage.filter((u) => u.cpu_ms !== null);
  const cpu_report: CpuReport = measured.length > 0 ? "measured" : usage.length > 0 ? "unmeasured" : "none";
  return {
    cpu_ms: measured.length > 0 ? measured.reduce((sum, u) => sum + u.cpu_ms!, 0) : null,
    peak_memory_mb: null,
    cpu_report,
  };
}

/** A view with the reports that have arrived so far. */
export function withUsage(view: ExecutionView, usage: readonly AttemptUsage[]): ExecutionView {
  return {
    ...view,
    ...(view.attempts ? { attempts: attemptsWithUsage(view.attempts, usage) } : {}),
    execution: { ...view.execution, resources: resourcesOf(usage) },
  };
}
