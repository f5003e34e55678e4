/**
 * The pure parts of `npm run simulate:audit` (sim/audit/model.ts): the seeded PRNG and the Zipf
 * sampler that pick each call's tenant, the delivery plan, and the projections from a short run
 * to a 24 h window that docs/scale.md section 7.4 quotes.
 */
import { describe, expect, it } from "vitest";
import {
  columns,
  planDeliveries,
  prng,
  project,
  sampler,
  shardCapacity,
  shardsForWindow,
  zipfShares,
  type Limits,
} from "../../../sim/audit/model.ts";

const limits: Limits = { maxExecutions: 6_000_000, windowSeconds: 86_400, maxBytes: 10e9 };

describe("the seeded PRNG", () => {
  it("repeats with its seed, differs with another, stays in [0, 1)", () => {
    const a = prng(1);
    const b = prng(1);
    const c = prng(2);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 1000 }, () => c())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(xs.reduce((s, x) => s + x, 0) / xs.length).toBeCloseTo(0.5, 1);
  });
});

describe("Zipf", () => {
  it("shares fall as rank^-s and add up to 1", () => {
    const s = zipfShares(1000, 1.1);
    expect(s.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(s[0] / s[1]).toBeCloseTo(2 ** 1.1, 9);
    expect(s[9] / s[99]).toBeCloseTo(10 ** 1.1, 9);
    // 1,000 tenants at 1.1: the hottest takes ~18% of the calls.
    expect(s[0]).toBeGreaterThan(0.17);
    expect(s[0]).toBeLessThan(0.19);
    expect(zipfShares(4, 0)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });

  it("the sampler draws each rank about as often as its share", () => {
    const shares = zipfShares(50, 1.1);
    const draw = sampler(shares, prng(7));
    const n = 200_000;
    const counts = new Array<number>(50).fill(0);
    for (let i = 0; i < n; i++) counts[draw()]++;
    for (const k of [0, 1, 4, 49]) expect(counts[k] / n).toBeCloseTo(shares[k], 2);
    expect(counts.every((c) => c > 0)).toBe(true);
  });
});

describe("the delivery plan", () => {
  it("every execution's record and report once; full batches; a report never before its record", () => {
    const random = prng(3);
    const plan = planDeliveries(1000, 50, () => random() < 0.5);
    const flat = plan.flat();
    expect(flat.filter((p) => p.kind === "finished").map((p) => p.execution)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
    expect(new Set(flat.filter((p) => p.kind === "usage").map((p) => p.execution)).size).toBe(1000);
    // Full while executions remain: the last record's delivery, and the late reports after it, may not be.
    expect(plan.slice(0, -2).every((d) => d.length === 50)).toBe(true);
    expect(plan.length).toBeLessThanOrEqual(Math.ceil(2000 / 50) + 1);
    const deliveryOf = (kind: string, e: number) =>
      plan.findIndex((d) => d.some((p) => p.kind === kind && p.execution === e));
    let same = 0;
    for (let e = 0; e < 1000; e++) {
      const late = deliveryOf("usage", e) - deliveryOf("finished", e);
      expect([0, 1]).toContain(late);
      if (late === 0) same++;
    }
    expect(same / 1000).toBeGreaterThan(0.4);
    expect(same / 1000).toBeLessThan(0.6);
  });

  it("all reports together or all a delivery late", () => {
    expect(planDeliveries(3, 4, () => true)).toEqual([
      [
        { kind: "finished", execution: 0 },
        { kind: "usage", execution: 0 },
        { kind: "finished", execution: 1 },
        { kind: "usage", execution: 1 },
      ],
      [
        { kind: "finished", execution: 2 },
        { kind: "usage", execution: 2 },
      ],
    ]);
    const late = planDeliveries(4, 4, () => false);
    expect(late.map((d) => d.map((p) => `${p.kind[0]}${p.execution}`))).toEqual([
      ["f0", "f1", "f2", "f3"],
      ["u0", "u1", "u2", "u3"],
    ]);
  });
});

describe("the projections", () => {
  it("per-second rates, the 24 h window against 10 GB and the size bound, the hours one shard holds", () => {
    // 10 s: shard 0 took 900 executions of 1,500 B, shard 1 took 100.
    const [hot, cold] = project(
      [
        { executions: 900, rows: 6_300, requests: 200, batches: 100, bytes: 1_350_000 },
        { executions: 100, rows: 700, requests: 100, batches: 60, bytes: 150_000 },
      ],
      10,
      limits,
    );
    expect(hot.share).toBe(0.9);
    expect(hot.perSecond).toEqual({ executions: 90, rows: 630, requests: 20, batches: 10, bytes: 135_000 });
    expect(hot.windowBytes).toBe(135_000 * 86_400);
    expect(hot.ofD1Limit).toBeCloseTo(1.1664, 4);
    // 90/s × 86,400 = 7.78 M executions against 6 M kept.
    expect(hot.ofCap).toBeCloseTo(7_776_000 / 6_000_000, 9);
    expect(hot.hoursHeld).toBeCloseTo(6_000_000 / 90 / 3600, 9);
    expect(cold.hoursHeld).toBe(24);
    expect(cold.bytesPerExecution).toBe(1500);
  });

  it("a shard holds fewer than AUDIT_MAX_EXECUTIONS when that many would pass 10 GB", () => {
    expect(shardCapacity(limits, 1500)).toBe(6_000_000);
    expect(shardCapacity(limits, 2500)).toBe(4_000_000);
    const [one] = project([{ executions: 100, rows: 0, requests: 0, batches: 0, bytes: 250_000 }], 1, limits);
    expect(one.hoursHeld).toBeCloseTo(4_000_000 / 100 / 3600, 9);
  });

  it("the shards a full window needs: the busiest shard's share, or none when the hottest tenant alone is too much", () => {
    // Two tenants of 60% and 40%; n shards place tenant t on t % n.
    const place = (t: number, n: number) => t % n;
    expect(shardsForWindow([0.6, 0.4], 100, 6_000_000, 86_400, place)).toEqual({
      shards: 2,
      busiestShare: 0.6,
      hottestTenantPerWindow: 0.6 * 100 * 86_400,
    });
    // 50 calls/s fit one shard (4.32 M a day).
    expect(shardsForWindow([0.6, 0.4], 50, 6_000_000, 86_400, place).shards).toBe(1);
    // At 1,000 calls/s the 60% tenant alone writes 51.8 M a day: no number of shards holds it.
    expect(shardsForWindow([0.6, 0.4], 1000, 6_000_000, 86_400, place)).toEqual({
      shards: null,
      busiestShare: 0.6,
      hottestTenantPerWindow: 0.6 * 1000 * 86_400,
    });
  });
});

describe("the table", () => {
  it("aligns columns: the first to the left, the others to the right", () => {
    expect(
      columns([
        ["shard", "rows/s"],
        ["0", "1,234"],
        ["10", "5"],
      ]),
    ).toBe("shard  rows/s\n0       1,234\n10          5");
  });
});
