/**
 * The timeout hierarchy (docs/contract.md#timeouts) and budget tracking (docs/contract.md#budgets), pure.
 *
 * - The caller's `limits.timeout_ms` wins when given (docs/contract.md#limits: bounded by the tool's and
 *   the tenant's maximums); a request over the bound is clamped, and the response's
 *   `execution.timeout_ms` shows what was used.
 * - Otherwise the tool's latency class sets it.
 * - The system maximum (600 s by default) caps everything.
 */
import type { LatencyClass } from "../../providers/sdk/protocol.ts";

export const LATENCY_CLASS_DEFAULT_MS: Readonly<Record<LatencyClass, number>> = {
  instant: 100,
  fast: 5_000,
  slow: 60_000,
  long_running: 300_000,
};

export interface TimeoutChoice {
  timeout_ms: number;
  source: "caller" | "latency_class";
  clamped: boolean;
}

export function effectiveTimeoutMs(options: {
  requestedMs?: number;
  latencyClass: LatencyClass;
  toolMaxMs?: number;
  systemMaxMs: number;
}): TimeoutChoice {
  const cap = Math.min(options.toolMaxMs ?? options.systemMaxMs, options.systemMaxMs);
  if (options.requestedMs !== undefined) {
    return { timeout_ms: Math.min(options.requestedMs, cap), source: "caller", clamped: options.requestedMs > cap };
  }
  const byClass = LATENCY_CLASS_DEFAULT_MS[options.latencyClass];
  return { timeout_ms: Math.min(byClass, cap), source: "latency_class", clamped: byClass > cap };
}

/** What is left of the budget after the pipeline's own time (docs/contract.md#budgets). */
export function remainingBudgetMs(timeoutMs: number, acceptedAt: number, now: number): number {
  return Math.max(0, timeoutMs - Math.max(0, now - acceptedAt));
}
