import { describe, expect, it } from "vitest";
import {
  DEAD_AFTER_TRANSPORT_FAILURES,
  HealthShard,
  SAMPLES_KEPT,
  type HealthShardStore,
  type ToolWindow,
} from "../../../src/registry/health-shard.ts";
import {
  breakerView,
  DEFAULT_BREAKER,
  type BreakerRecord,
  type Sample,
} from "../../../src/registry/provider-health.ts";

/** A shard over an in-memory store that counts its writes; `reopen` is a restart. */
function shard() {
  const windows = new Map<string, ToolWindow>();
  const breakers = new Map<string, BreakerRecord>();
  let writes = 0;
  const store: HealthShardStore = {
    windows: () => new Map([...windows].map(([k, w]) => [k, { policy: w.policy, samples: [...w.samples] }])),
    saveWindow: (tool, w) => (writes++, windows.set(tool, { policy: w.policy, samples: [...w.samples] })),
    breakers: () => new Map(breakers),
    saveBreaker: (tool, b) => (writes++, breakers.set(tool, b)),
    clear: () => (windows.clear(), breakers.clear()),
  };
  let seq = 1_000;
  return {
    shard: new HealthShard("p", store, () => seq++),
    reopen: () => new HealthShard("p", store, () => seq++),
    writes: () => writes,
  };
}

const T0 = 1_700_000_000_000;
const POLICY = { failures: 3, window_ms: 10_000, cooldown_ms: 5_000 };
const sample = (ok: boolean, at = T0, latency_ms = 10): Sample => ({ provider: "p", tool: "t", at, latency_ms, ok });
/** A report that names the tool's policy, or (`told: false`) does not. */
const report = (samples: Sample[], told = true) => ({
  provider: "p",
  samples,
  unreachable: [],
  ...(told ? { policies: { t: POLICY } } : {}),
});

describe("HealthShard (one provider's breakers, trials and liveness)", () => {
  it("opens the breaker at the policy's threshold, grants one trial after the cooldown, and closes on its success", () => {
    const { shard: s } = shard();
    s.report(report([sample(false), sample(false)]), T0);
    expect(breakerView(s.view().tools.t.breaker, T0)).toBe("closed");
    s.report(report([sample(false)]), T0);
    expect(breakerView(s.view().tools.t.breaker, T0)).toBe("open");
    expect(s.acquireTrial("t", undefined, T0)).toBe(false);
    expect(s.acquireTrial("t", undefined, T0 + 5_000)).toBe(true);
    expect(s.acquireTrial("t", undefined, T0 + 5_001)).toBe(false);
    s.report(report([sample(true, T0 + 5_002)]), T0 + 5_002);
    expect(breakerView(s.view().tools.t.breaker, T0 + 5_002)).toBe("closed");
  });

  it("keeps the policy it was told for reports that do not say it, across a restart", () => {
    const { shard: s, reopen } = shard();
    s.report(report([sample(true)]), T0);
    const again = reopen();
    again.report(report([sample(false), sample(false), sample(false)], false), T0);
    expect(again.view().tools.t.policy).toEqual(POLICY);
    expect(breakerView(again.view().tools.t.breaker, T0)).toBe("open");
  });

  it("uses the default policy for a tool nobody described", () => {
    const { shard: s } = shard();
    s.report(report([sample(false), sample(false), sample(false)], false), T0);
    expect(s.view().tools.t.policy).toEqual(DEFAULT_BREAKER);
    expect(breakerView(s.view().tools.t.breaker, T0)).toBe("closed");
  });

  it(`calls the provider dead after ${DEAD_AFTER_TRANSPORT_FAILURES} unreachable calls in a row; a good call forgives`, () => {
    const { shard: s } = shard();
    const unreachable = (n: number) => ({
      provider: "p",
      samples: [],
      unreachable: Array.from({ length: n }, () => ({ provider: "p", at: T0, reason: "Worker not found" })),
    });
    s.report(unreachable(DEAD_AFTER_TRANSPORT_FAILURES - 1), T0);
    s.report(report([sample(true)]), T0);
    s.report(unreachable(DEAD_AFTER_TRANSPORT_FAILURES - 1), T0);
    expect(s.view().dead).toBeUndefined();
    s.report(unreachable(1), T0);
    expect(s.view().dead).toEqual({ since: T0, reason: "Worker not found" });
    s.revive();
    expect(s.view().dead).toBeUndefined();
  });

  it("keeps the newest samples in time order when isolates' reports interleave, and writes one row per tool per report", () => {
    const { shard: s, writes } = shard();
    const batch = Array.from({ length: SAMPLES_KEPT }, (_, i) => sample(true, T0 + 2 * i));
    s.report(report(batch), T0);
    expect(writes()).toBe(1);
    s.report(report([sample(true, T0 + 1, 99), sample(true, T0 - 5, 99)]), T0);
    const w = s.view().tools.t;
    expect(w.samples).toBe(SAMPLES_KEPT);
    expect(writes()).toBe(2);
  });

  it("orders its views by seq, forward only, even after a reset", () => {
    const { shard: s } = shard();
    const a = s.view().seq;
    s.report(report([sample(true)]), T0);
    const b = s.view().seq;
    s.reset();
    expect(b).toBeGreaterThan(a);
    expect(s.view().seq).toBeGreaterThan(b);
    expect(s.view().tools).toEqual({});
  });
});
