/**
 * What every call accepts besides its own arguments: a signal to stop it, a deadline, and
 * opt-in retries. A call's scope joins the caller's signal and the deadline into one signal
 * that reaches `fetch` (and so the body and any stream), and turns an abort into the right
 * error: the caller's own reason when the caller aborted, ClientTimeoutError when the
 * deadline passed.
 */
import { ClientTimeoutError } from "./errors.ts";

/**
 * Opt-in retries of calls that failed with `retryable: true` (including `network_error`).
 * The wait is the runtime's `Retry-After` (or `details.retry_after_ms`) when it gave one,
 * else `baseMs · 2^attempt` with full jitter. A wait longer than `maxDelayMs`, or past the
 * call's `timeoutMs`, is not taken: the error is thrown instead.
 *
 * Only calls that cannot take effect twice are retried: reads (GET), `revokeKey` (DELETE),
 * `dryRun` and `cancel`, and `invoke`/`start`/`invokeStream` **only when they carry an
 * `idempotency_key`** (the runtime then answers a repeat with the first execution). Other
 * POSTs (`approve`, `reject`, `createKey`, calls without a key) are never retried.
 */
export interface RetryPolicy {
  /** Retries after the first attempt (0: none). */
  max: number;
  /** The first backoff step when the runtime did not say how long to wait (default 200). */
  baseMs?: number;
  /** The longest wait accepted before one retry (default 30 000). */
  maxDelayMs?: number;
}

export interface CallOptions {
  /** Aborts the call: the request, the reading of its answer, and any stream it opened. */
  signal?: AbortSignal;
  /**
   * A deadline for the whole call, retries and waits included (a listing's iterator: for each
   * page; a stream: for all of it). When it passes, the call throws ClientTimeoutError.
   */
  timeoutMs?: number;
  /** Overrides the client's `retries` for this call; `false` turns them off. */
  retries?: RetryPolicy | false;
}

export interface CallScope {
  signal: AbortSignal;
  /** When `timeoutMs` runs out (ms since the epoch), if the call has one. */
  deadline?: number;
  /** Throws why the scope was aborted, if it was. */
  throwIfAborted(): void;
  /** Stops the deadline's timer; call when the call has ended. */
  close(): void;
}

export function openScope(o: Pick<CallOptions, "signal" | "timeoutMs"> = {}): CallScope {
  const controller = new AbortController();
  const outer = o.signal;
  const fromOuter = () => controller.abort(outer!.reason);
  if (outer?.aborted) fromOuter();
  else outer?.addEventListener("abort", fromOuter, { once: true });
  const timer =
    o.timeoutMs !== undefined && !controller.signal.aborted
      ? setTimeout(() => controller.abort(new ClientTimeoutError(o.timeoutMs!)), o.timeoutMs)
      : undefined;
  return {
    signal: controller.signal,
    deadline: o.timeoutMs !== undefined ? Date.now() + o.timeoutMs : undefined,
    throwIfAborted() {
      if (controller.signal.aborted) throw controller.signal.reason;
    },
    close() {
      clearTimeout(timer);
      outer?.removeEventListener("abort", fromOuter);
    },
  };
}

/** Waits `ms`, or until the signal aborts (then throws its reason). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => (clearTimeout(timer), reject(signal.reason));
    const timer = setTimeout(() => (signal.removeEventListener("abort", onAbort), resolve()), ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
