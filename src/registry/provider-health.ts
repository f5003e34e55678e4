/**
 * Provider health, pure: latency and error-rate statistics from real executions
 * (docs/contract.md#ranking criteria 3 and 4), the circuit breaker (docs/contract.md#circuit-breakers) and which offerings may be
 * called now. The registry object stores the inputs; edges evaluate them on the snapshot.
 */

/** One finished call, as the execution object reports it. */
export interface Sample {
  provider: string;
  tool: string;
  at: number;
  latency_ms: number;
  /** false for failures the provider is to blame for (crash, timeout, invalid output, unreachable). */
  ok: boolean;
}

/** docs/contract.md#circuit-breakers: N failures in M seconds open the breaker for a cooldown. */
export interface BreakerPolicy {
  failures: number;
  window_ms: number;
  cooldown_ms: number;
}

export const DEFAULT_BREAKER: BreakerPolicy = { failures: 5, window_ms: 30_000, cooldown_ms: 30_000 };

/**
 * Stored breaker state. `half_open` is not stored: an open breaker whose cooldown has passed
 * is half-open, and the first caller to take the trial (`trial_at`) decides.
 */
export interface BreakerRecord {
  state: "closed" | "open";
  /** Failures before this instant no longer count (set when the breaker closes). */
  reset_at: number;
  opened_at?: number;
  until?: number;
  trial_at?: number;
}

export type BreakerView = "closed" | "open" | "half_open";

export const CLOSED: BreakerRecord = { state: "closed", reset_at: 0 };

export function breakerView(b: BreakerRecord, now: number): BreakerView {
  if (b.state === "closed") return "closed";
  return now >= b.until! ? "half_open" : "open";
}

/**
 * The breaker after `sample` (samples in the window, this one included, newest last).
 * Closed: opens when the failures since reset within the window reach the threshold.
 * Half-open: the trial's outcome closes it or opens it for another cooldown.
 */
export function nextBreaker(
  b: BreakerRecord,
  sample: Sample,
  recent: readonly Sample[],
  policy: BreakerPolicy,
  now: number,
): BreakerRecord {
  const view = breakerView(b, now);
  if (view === "half_open" || (view === "open" && b.trial_at !== undefined)) {
    // A straggler from a call that started before the breaker opened does not decide it.
    if (sample.at < (b.opened_at ?? 0)) return b;
    return sample.ok ? { state: "closed", reset_at: now } : open(now, policy);
  }
  if (view === "open") return b; // stragglers from before it opened change nothing
  if (sample.ok) return b;
  const since = Math.max(b.reset_at, now - policy.window_ms);
  const failures = recent.filter((s) => !s.ok && s.at >= since).length;
  return failures >= policy.failures ? open(now, policy) : b;
}

function open(now: number, policy: BreakerPolicy): BreakerRecord {
  return { state: "open", reset_at: now, opened_at: now, until: now + policy.cooldown_ms };
}

export interface HealthStats {
  p50_ms: number | null;
  error_rate: number | null;
  samples: number;
}

/** p50 over successful calls; error rate over all calls. Null when there is nothing to measure. */
export function healthStats(samples: readonly Sample[]): HealthStats {
  const ok = samples
    .filter((s) => s.ok)
    .map((s) => s.latency_ms)
    .sort((a, b) => a - b);
  const p50 =
    ok.length === 0
      ? null
      : ok.length % 2 === 1
        ? ok[(ok.length - 1) / 2]
        : (ok[ok.length / 2 - 1] + ok[ok.length / 2]) / 2;
  return {
    p50_ms: p50,
    error_rate: samples.length === 0 ? null : samples.filter((s) => !s.ok).length / samples.length,
    samples: samples.length,
  };
}

/** A provider whose binding failed (docs/contract.md#liveness), as an execution reports it. */
export interface DeadReport {
  provider: string;
  at: number;
  reason: string;
}
