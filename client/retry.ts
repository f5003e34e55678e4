/**
 * The retry loop of RetryPolicy (call-options.ts): which failures are tried again, and after
 * how long. `random` is injectable so that the backoff can be tested without chance.
 */
import type { CallScope, RetryPolicy } from "./call-options.ts";
import { pause } from "./call-options.ts";
import { ToolRuntimeError } from "./errors.ts";

export interface RetryContext {
  policy?: RetryPolicy | false;
  /** Whether this call may be sent again (see RetryPolicy). */
  idempotent: boolean;
  scope: CallScope;
  /** When the call's deadline passes (ms since the epoch), if it has one. */
  deadline?: number;
  random?: () => number;
}

/** How long to wait before retry number `attempt` (0-based), or undefined to give up. */
export function retryDelay(
  err: unknown,
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (!(err instanceof ToolRuntimeError) || !err.retryable || attempt >= policy.max) return undefined;
  // A timeout of our own already spent the call's time; trying again would not fit in it.
  if (err.code === "client_timeout") return undefined;
  const wait = err.retryAfterMs ?? Math.floor(random() * (policy.baseMs ?? 200) * 2 ** attempt);
  return wait <= (policy.maxDelayMs ?? 30_000) ? wait : undefined;
}

export async function withRetries<T>(attempt: () => Promise<T>, c: RetryContext): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      c.scope.throwIfAborted();
      const wait = c.policy && c.idempotent ? retryDelay(err, n, c.policy, c.random) : undefined;
      if (wait === undefined || (c.deadline !== undefined && Date.now() + wait >= c.deadline)) throw err;
      await pause(wait, c.scope.signal);
    }
  }
}
