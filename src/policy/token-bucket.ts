/** A token bucket, pure: `rate` tokens a second up to `burst`. */
export interface Bucket {
  tokens: number;
  updated: number;
}

/** The bucket refilled up to `now`. */
export function refill(bucket: Bucket | undefined, rate: number, burst: number, now: number): Bucket {
  const prior = bucket ?? { tokens: burst, updated: now };
  return { tokens: Math.min(burst, prior.tokens + (Math.max(0, now - prior.updated) / 1000) * rate), updated: now };
}

/** How long until the bucket holds a whole token (ms). */
export function waitForToken(bucket: Bucket, rate: number): number {
  return Math.max(1, Math.ceil(((1 - bucket.tokens) / rate) * 1000));
}

/** Takes one token, or says how long until there is one. */
export function takeToken(
  bucket: Bucket | undefined,
  rate: number,
  burst: number,
  now: number,
): { bucket: Bucket; ok: boolean; retry_after_ms: number } {
  const b = refill(bucket, rate, burst, now);
  if (b.tokens >= 1) return { bucket: { tokens: b.tokens - 1, updated: now }, ok: true, retry_after_ms: 0 };
  return { bucket: b, ok: false, retry_after_ms: waitForToken(b, rate) };
}
