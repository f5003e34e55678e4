import { describe, expect, it } from "vitest";
import { healthKey, type OfferingHealth, type RegistrySnapshot } from "../../../src/registry/catalog.ts";
import {
  breakerDigest,
  quantizeStats,
  roundToE24,
  statsDigest,
  withPatches,
  type ProviderHealthView,
} from "../../../src/registry/health-view.ts";
import { CLOSED, DEFAULT_BREAKER } from "../../../src/registry/provider-health.ts";

const health = (
  p50_ms: number | null,
  error_rate: number | null = 0,
  extra: Partial<OfferingHealth> = {},
): OfferingHealth => ({
  p50_ms,
  error_rate,
  samples: 20,
  breaker: CLOSED,
  policy: DEFAULT_BREAKER,
  ...extra,
});

function snapshot(over: Partial<RegistrySnapshot> = {}): RegistrySnapshot {
  return {
    version: 7,
    built_at: 0,
    providers: [
      { name: "a", binding: "A", trust: "system", seq: 1, reachable: true, tools: 1 },
      { name: "b", binding: "B", trust: "system", seq: 2, reachable: true, tools: 1 },
    ],
    tools: {},
    problems: [],
    health: {
      [healthKey("a", "t.one")]: health(20),
      [healthKey("a", "t.two")]: health(30),
      [healthKey("b", "t.one")]: health(40),
    },
    health_seq: { a: 100, b: 100 },
    deprecations: {},
    ...over,
  };
}

const view = (seq: number, over: Partial<ProviderHealthView> = {}): ProviderHealthView => ({
  provider: "a",
  seq,
  tools: { "t.one": health(25) },
  ...over,
});

describe("quantized statistics (what moves the registry's version)", () => {
  it("rounds to the nearest E24 step, about 10% apart, on a log scale", () => {
    expect([20, 41, 42, 950, 1_000, 0.5, 0, -3].map(roundToE24)).toEqual([20, 43, 43, 910, 1_000, 0.51, 0, 0]);
  });

  it("keeps p50 to about 10%, the error rate to whole percent and small counts exact", () => {
    expect(quantizeStats({ p50_ms: 41, error_rate: 0.104, samples: 4 })).toEqual({
      p50_ms: 43,
      error_rate: 0.1,
      samples: 4,
    });
    expect(quantizeStats({ p50_ms: null, error_rate: null, samples: 0 })).toEqual({
      p50_ms: null,
      error_rate: null,
      samples: 0,
    });
  });

  it("gives the same digest for 41 and 42 ms and another for 50 ms; the sample count does not count", () => {
    const of = (h: OfferingHealth) => statsDigest({ tools: { t: h } });
    expect(of(health(41))).toBe(of(health(42, 0, { samples: 180 })));
    expect(of(health(41))).not.toBe(of(health(50)));
    expect(of(health(41, 0.1))).not.toBe(of(health(41, 0.12)));
  });

  it("moves the breaker digest when a breaker opens or a trial is taken, not when statistics move", () => {
    const closed = { tools: { t: health(41) } };
    expect(breakerDigest(closed)).toBe(breakerDigest({ tools: { t: health(90, 0.5) } }));
    const open = {
      tools: { t: health(41, 0, { breaker: { state: "open" as const, reset_at: 1, opened_at: 1, until: 2 } }) },
    };
    expect(breakerDigest(open)).not.toBe(breakerDigest(closed));
    const trial = {
      tools: {
        t: health(41, 0, { breaker: { state: "open" as const, reset_at: 1, opened_at: 1, until: 2, trial_at: 3 } }),
      },
    };
    expect(breakerDigest(trial)).not.toBe(breakerDigest(open));
    expect(breakerDigest({ ...closed, dead: { since: 1, reason: "gone" } })).not.toBe(breakerDigest(closed));
  });
});

describe("an isolate's copy with the views its reports were answered with", () => {
  it("replaces every entry of the patched provider with the newer view, and leaves others alone", () => {
    const s = withPatches(snapshot(), new Map([["a", view(101)]]));
    expect(s.health[healthKey("a", "t.one")].p50_ms).toBe(25);
    expect(s.health[healthKey("a", "t.two")]).toBeUndefined();
    expect(s.health[healthKey("b", "t.one")].p50_ms).toBe(40);
    expect(s.health_seq).toEqual({ a: 101, b: 100 });
    expect(s.version).toBe(7);
  });

  it("ignores a view the copy already holds or has passed", () => {
    const base = snapshot();
    expect(withPatches(base, new Map([["a", view(100)]]))).toBe(base);
    expect(withPatches(base, new Map([["a", view(99)]]))).toBe(base);
  });

  it("adds a death the shard saw, and never revives: only the registry does", () => {
    const dead = withPatches(
      snapshot(),
      new Map([["a", view(101, { dead: { since: 5, reason: "Worker not found" } })]]),
    );
    expect(dead.providers.find((p) => p.name === "a")!.dead).toEqual({ since: 5, reason: "Worker not found" });
    const base = snapshot({
      providers: snapshot().providers.map((p) =>
        p.name === "a" ? { ...p, dead: { since: 1, reason: "manifest failed" } } : p,
      ),
    });
    expect(withPatches(base, new Map([["a", view(101)]])).providers.find((p) => p.name === "a")!.dead).toEqual({
      since: 1,
      reason: "manifest failed",
    });
  });
});
