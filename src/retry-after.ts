/**
 * Answers that ask the caller to come back later — 429 (a limit) and 503 (no capacity, no
 * provider) — always say when (docs/contract.md#errors): `details.retry_after_ms` in the error
 * body on every face, and `Retry-After` in whole seconds on every face that has headers. This
 * is the one rule; the faces call it where they render an answer.
 */
import type { ErrorBody, Value } from "./contract.ts";

/** The statuses whose answers carry `Retry-After`. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/**
 * How long to wait when nothing knows better: a provider that could not be reached, a runtime
 * that is not ready. Five seconds is the health checks' scale (a provider that came back is seen
 * within it) and short enough that a caller who waits loses little.
 */
export const DEFAULT_RETRY_AFTER_MS = 5_000;

/** `details` with `retry_after_ms`, the default when a 429/503 error does not say. */
export function withRetryAfter(
  status: number,
  details: Record<string, Value> | undefined,
): Record<string, Value> | undefined {
  if (!RETRY_AFTER_STATUSES.has(status) || typeof details?.retry_after_ms === "number") return details;
  return { ...details, retry_after_ms: DEFAULT_RETRY_AFTER_MS };
}

/** `Retry-After` in whole seconds: rounded up, at least 1 (RFC 9110 §10.2.3 has no fractions). */
export function retryAfterSeconds(ms: number | undefined): string {
  const figure = typeof ms === "number" && Number.isFinite(ms) ? ms : DEFAULT_RETRY_AFTER_MS;
  return String(Math.max(1, Math.ceil(figure / 1000)));
}

/** The `retry_after_ms` an error says, if any. */
export function retryAfterMsOf(error: Pick<ErrorBody, "details"> | undefined): number | undefined {
  const ms = error?.details?.retry_after_ms;
  return typeof ms === "number" ? ms : undefined;
}

/**
 * The `Retry-After` header of an HTTP answer: present for every 429/503, from the answer's error
 * (a refusal's envelope `{error}` or a finished execution's view, whose `error` has the same
 * shape), else the default. Other statuses get none.
 */
export function retryAfterHeaders(status: number, answer: unknown): Record<string, string> {
  if (!RETRY_AFTER_STATUSES.has(status)) return {};
  const error =
    answer !== null && typeof answer === "object"
      ? (answer as { error?: Pick<ErrorBody, "details"> }).error
      : undefined;
  return { "Retry-After": retryAfterSeconds(retryAfterMsOf(error)) };
}
