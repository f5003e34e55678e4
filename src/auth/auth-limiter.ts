/**
 * Unauthenticated floods, per client address (`CF-Connecting-IP`), before any read of the
 * key store: Cloudflare's Rate Limiting binding AUTH_LIMITER (wrangler.jsonc `ratelimits`).
 *
 * What counts is a failed credential (absent, malformed, unknown, revoked, a bad JWT), not
 * every request: a limit on every request from one address would have to sit above the busiest
 * legitimate client behind one address (a NAT, a load test), so high that it would not slow a
 * key-guessing flood at all, while a limit on failures can be low (30 in 10 s) and never touches
 * a caller whose key holds. Once an address is over, this isolate refuses it for the rest of the
 * period *before* the key lookup: a flood costs at most one KV read per isolate per period
 * after the limiter trips, and none while the isolate remembers. The limiter's counts are per
 * Cloudflare location and eventually consistent (its documentation): a bound on abuse, not an
 * exact count.
 *
 * A local stack (LOCAL_DEVELOPMENT) does not count the address its own clients connect from
 * (127.0.0.1, ::1): its test suite sends bad credentials on purpose, and a refused address is
 * refused whatever its key. Other loopback addresses count (a test names one, e.g.
 * 127.31.4.15, in CF-Connecting-IP, which miniflare keeps when present). A deployment never
 * sees a loopback CF-Connecting-IP (Cloudflare sets the header).
 */
import { RuntimeError } from "../errors.ts";
import type { RequestFacts } from "./local-only.ts";

/** How long an address that went over stays refused here: the limiter's period (wrangler.jsonc). */
const BLOCK_MS = 10_000;
/** Addresses this isolate remembers at most (a flood from many addresses must not grow it without bound). */
const MAX_BLOCKED = 10_000;

const blocked = new Map<string, number>();

/** The address miniflare gives a local client that names none. */
const THIS_MACHINE = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1", "unknown"]);

export function clientAddress(request: RequestFacts): string {
  return request.headers.get("cf-connecting-ip") ?? "unknown";
}

/** Before the key lookup: an address this isolate saw go over is refused without a read. */
export function refuseIfBlocked(request: RequestFacts, now = Date.now()): void {
  const address = clientAddress(request);
  const until = blocked.get(address);
  if (until === undefined) return;
  if (until > now) throw tooMany(until - now);
  blocked.delete(address);
}

/**
 * A credential failed: counts it against the address, and answers `rate_limited` instead of
 * `unauthenticated` once the address is over (the caller learns when to try again, not which
 * part of its credential was wrong).
 */
export async function countFailure(env: Env, request: RequestFacts, refusal: RuntimeError): Promise<RuntimeError> {
  const limiter: RateLimit | undefined = env.AUTH_LIMITER;
  const address = clientAddress(request);
  if (!limiter || (env.LOCAL_DEVELOPMENT === "true" && THIS_MACHINE.has(address))) return refusal;
  const { success } = await limiter.limit({ key: address });
  if (success) return refusal;
  if (blocked.size >= MAX_BLOCKED) blocked.clear();
  blocked.set(address, Date.now() + BLOCK_MS);
  return tooMany(BLOCK_MS);
}

function tooMany(retryAfterMs: number): RuntimeError {
  return new RuntimeError("rate_limited", "too many failed credentials from this address", {
    reason: "auth_failures",
    retry_after_ms: retryAfterMs,
  });
}
