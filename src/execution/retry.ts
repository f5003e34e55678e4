/**
 * The retry engine (docs/contract.md#retries): only tools that declare
 * `idempotent: true`, only on retryable outcomes, with exponential backoff and full jitter,
 * never past the caller's budget, up to `max_attempts`. The driver takes its clock, sleep and
 * randomness as arguments, so its rules are tested without time passing.
 */
import type { AttemptRecord } from "../contract.ts";
import type { ErrorCode } from "../errors.ts";
import type { ProviderOutcome } from "./provider-call.ts";
import type { Settlement } from "./settle.ts";

export interface RetryPolicy {
  max_attempts: number;
  base_ms: number;
  cap_ms: number;
}

export const DEFAULT_RETRY: RetryPolicy = { max_attempts: 3, base_ms: 100, cap_ms: 2_000 };

/** Outcomes where another try may succeed, and whether it should go to another provider. */
const RETRYABLE: Partial<Record<ErrorCode, { nextProvider: boolean }>> = {
  timeout: { nextProvider: true },
  provider_crashed: { nextProvider: true },
  sandbox_unavailable: { nextProvider: true },
  no_healthy_provider: { nextProvider: true },
};

export function retryDecision(settlement: Settlement, idempotent: boolean): { retry: boolean; nextProvider: boolean } {
  if (!idempotent || settlement.status === "succeeded" || settlement.status === "cancelled" || !settlement.error)
    return { retry: false, nextProvider: false };
  const code = settlement.error.code as ErrorCode;
  // A tool error is retried only when the tool itself says trying again may help.
  if (code === "tool_error") return { retry: settlement.error.retryable, nextProvider: false };
  const rule = RETRYABLE[code];
  return rule ? { retry: true, nextProvider: rule.nextProvider } : { retry: false, nextProvider: false };
}

/** Full jitter: uniformly random in [0, min(cap, base · 2^(n-1))] before retry n. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  return Math.floor(random() * Math.min(policy.cap_ms, policy.base_ms * 2 ** (retry - 1)));
}

/**
 * docs/contract.md#delivery: the provider's own latency, sent in microseconds (`latency_us`), in milliseconds;
 * null when the provider did not answer, or answered without a usable figure.
 */
export function providerLatencyMs(outcome: ProviderOutcome): number | null {
  if (outcome.kind !== "result") return null;
  const us: unknown = outcome.result.latency_us;
  return typeof us === "number" && Number.isFinite(us) && us >= 0 ? Math.round(us) / 1000 : null;
}

export interface AttemptResult {
  outcome: ProviderOutcome;
  settlement: Settlement;
}

export interface RunAttemptsOptions<P extends { provider: string }> {
  providers: P[];
  idempotent: boolean;
  policy: RetryPolicy;
  acceptedAt: number;
  /** Budget left for the whole execution. */
  remainingMs: () => number;
  /** The longest one attempt may take, when retries are possible. */
  attemptCapMs: number;
  /** One attempt; undefined when it could not be made (a retry's provider is full, docs/contract.md#waiting): the one before stands. */
  attempt: (provider: P, timeoutMs: number, n: number) => Promise<AttemptResult | undefined>;
  /** True once the execution is cancelled: no further attempt starts. */
  stopped: () => boolean;
  onRetry: (info: { attempt: number; provider: string; code: string; delay_ms: number; next_provider: string }) => void;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  now: () => number;
}

/** Runs attempts until one settles for good; returns the last one and the record of all. */
export async function runAttempts<P extends { provider: string }>(
  o: RunAttemptsOptions<P>,
): Promise<AttemptResult & { provider: P; attempts: AttemptRecord[] }> {
  const attempts: AttemptRecord[] = [];
  const maxAttempts = o.idempotent ? Math.max(1, o.policy.max_attempts) : 1;
  let index = 0;
  let previous: (AttemptResult & { provider: P; attempts: AttemptRecord[] }) | undefined;
  for (let n = 1; ; n++) {
    const provider = o.providers[Math.min(index, o.providers.length - 1)];
    // With retries possible an attempt is held to the tool's own time, so that a hung attempt
    // leaves budget for another; without, it has all of the budget.
    const timeout = maxAttempts > 1 ? Math.min(o.attemptCapMs, o.remainingMs()) : o.remainingMs();
    const started = o.now();
    const result = await o.attempt(provider, timeout, n);
    if (!result) {
      if (previous) return previous;
      throw new Error("the first attempt could not be made");
    }
    const ended = o.now();
    attempts.push({
      attempt: n,
      provider: provider.provider,
      outcome:
        result.settlement.status === "succeeded"
          ? "succeeded"
          : (result.settlement.error?.code ?? result.settlement.status),
      started_ms: Math.max(0, started - o.acceptedAt),
      duration_ms: Math.max(0, ended - started),
      provider_latency_ms: providerLatencyMs(result.outcome),
      // Reported by the platform after the provider's invocation ends (usage.ts).
      cpu_ms: null,
    });
    previous = { ...result, provider, attempts };
    const decision = retryDecision(result.settlement, o.idempotent);
    if (!decision.retry || n >= maxAttempts || o.stopped()) return previous;
    const delay = backoffMs(n, o.policy, o.random);
    // Never past the budget: the next attempt needs time to run after the wait.
    if (o.remainingMs() - delay <= 0) return previous;
    if (decision.nextProvider && index < o.providers.length - 1) index++;
    o.onRetry({
      attempt: n,
      provider: provider.provider,
      code: attempts.at(-1)!.outcome,
      delay_ms: delay,
      next_provider: o.providers[Math.min(index, o.providers.length - 1)].provider,
    });
    await o.sleep(delay);
    if (o.stopped()) return previous;
  }
}
