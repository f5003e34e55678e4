/** A token bucket, pure: `rate` tokens a second up to `burst`; one token per call. */
export interface Bucket {
  tokens: number;
  updated: number;
}

export function takeToken(bucket: Bucket | undefined, rate: number, burst: number, now: number): { bucket: Bucket; ok: boolean; retry_after_ms: number } {
  const prior = bucket ?? { tokens: burst, updated: now };
  const tokens = Math.min(burst, prior.tokens + (Math.max(0, now - prior.updated) / 1000) * rate);
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, updated: now }, ok: true, retry_after_ms: 0 };
  return { bucket: { tokens, updated: now }, ok: false, retry_after_ms: Math.ceil(((1 - tokens) / rate) * 1000) };
}
