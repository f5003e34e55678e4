import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT_LIMITS, limitsFor, parseLimitsConfig } from "../../../src/policy/limits.ts";
import { takeToken } from "../../../src/policy/token-bucket.ts";

describe("token bucket", () => {
  it("allows a full burst at once, then refuses with the time until the next token", () => {
    let bucket;
    for (let i = 0; i < 3; i++) {
      const r = takeToken(bucket, 1, 3, 1_000);
      expect(r.ok).toBe(true);
      bucket = r.bucket;
    }
    const refused = takeToken(bucket, 1, 3, 1_000);
    expect(refused).toMatchObject({ ok: false, retry_after_ms: 1_000 });
  });

  it("refills at the rate and never above the burst", () => {
    const empty = { tokens: 0, updated: 0 };
    expect(takeToken(empty, 2, 5, 499).ok).toBe(false);
    expect(takeToken(empty, 2, 5, 500).ok).toBe(true);
    expect(takeToken(empty, 2, 5, 60_000).bucket.tokens).toBe(4); // capped at 5, minus the one taken
  });

  it("does not refill when the clock goes backwards", () => {
    expect(takeToken({ tokens: 0, updated: 10_000 }, 1, 3, 5_000).ok).toBe(false);
  });
});

describe("tenant limits", () => {
  it("overlays a tenant's own limits on the defaults", () => {
    const config = parseLimitsConfig({ default: { burst: 10 }, tenants: { slow: { requests_per_second: 1 } } });
    expect(limitsFor(config, "slow")).toEqual({ ...DEFAULT_TENANT_LIMITS, burst: 10, requests_per_second: 1 });
    expect(limitsFor(config, "anyone")).toEqual({ ...DEFAULT_TENANT_LIMITS, burst: 10 });
  });

  it("does not read a tenant named like an object property", () => {
    expect(limitsFor(parseLimitsConfig({}), "__proto__")).toEqual(DEFAULT_TENANT_LIMITS);
  });

  it("refuses unknown limit names and non-positive figures", () => {
    expect(() => parseLimitsConfig({ default: { rps: 1 } })).toThrow(/not a known limit/);
    expect(() => parseLimitsConfig({ tenants: { t: { burst: 0 } } })).toThrow(/positive/);
    expect(() => parseLimitsConfig({ tenants: { t: { burst: "10" } } })).toThrow(/positive/);
  });
});

describe("tenant families in TENANT_LIMITS", () => {
  const config = parseLimitsConfig({
    default: { max_concurrent: 100 },
    tenants: {
      "trial-*": { max_concurrent: 2 },
      "trial-gold-*": { max_concurrent: 10 },
      "trial-exact": { max_concurrent: 5 },
    },
  });

  it("gives a tenant its family's limits, the longest family first, and an exact name over any family", () => {
    expect(limitsFor(config, "trial-123").max_concurrent).toBe(2);
    expect(limitsFor(config, "trial-gold-7").max_concurrent).toBe(10);
    expect(limitsFor(config, "trial-exact").max_concurrent).toBe(5);
    expect(limitsFor(config, "acme").max_concurrent).toBe(100);
  });
});
