import { describe, expect, it } from "vitest";
import {
  CLOSED,
  DEFAULT_BREAKER,
  breakerView,
  healthStats,
  nextBreaker,
  type BreakerPolicy,
  type BreakerRecord,
  type Sample,
} from "../../../src/registry/provider-health.ts";

const POLICY: BreakerPolicy = { failures: 3, window_ms: 10_000, cooldown_ms: 5_000 };
const T0 = 1_700_000_000_000;

function sample(at: number, ok: boolean, latency_ms = 10): Sample {
  return { provider: "p", tool: "t.tool", at, latency_ms, ok };
}

/**
 * Feeds samples one by one, as the registry does: each call sees every sample so far
 * (newest last) and `now` is the sample's own time.
 */
function replay(start: BreakerRecord, samples: Sample[], policy = POLICY): BreakerRecord {
  let b = start;
  const seen: Sample[] = [];
  for (const s of samples) {
    seen.push(s);
    b = nextBreaker(b, s, seen, policy, s.at);
  }
  return b;
}

function openAt(at: number, policy = POLICY): BreakerRecord {
  return { state: "open", reset_at: at, opened_at: at, until: at + policy.cooldown_ms };
}

describe("DEFAULT_BREAKER (docs/contract.md#circuit-breakers)", () => {
  it("opens after 5 failures in 30 s for a 30 s cooldown", () => {
    expect(DEFAULT_BREAKER).toEqual({ failures: 5, window_ms: 30_000, cooldown_ms: 30_000 });
  });

  it("keeps a fresh breaker closed after 4 failures and opens it on the 5th", () => {
    const four = [0, 1, 2, 3].map((i) => sample(T0 + i * 1_000, false));
    expect(replay(CLOSED, four, DEFAULT_BREAKER)).toBe(CLOSED);
    const five = replay(CLOSED, [...four, sample(T0 + 4_000, false)], DEFAULT_BREAKER);
    expect(five).toEqual({ state: "open", reset_at: T0 + 4_000, opened_at: T0 + 4_000, until: T0 + 34_000 });
  });
});

describe("nextBreaker: closed", () => {
  it("stays closed below the failure threshold", () => {
    const b = replay(CLOSED, [sample(T0, false), sample(T0 + 100, false)]);
    expect(b).toEqual(CLOSED);
    expect(breakerView(b, T0 + 100)).toBe("closed");
  });

  it("opens exactly at the Nth failure within the window, for one cooldown from then", () => {
    const b = replay(CLOSED, [sample(T0, false), sample(T0 + 100, false), sample(T0 + 200, false)]);
    expect(b).toEqual({ state: "open", reset_at: T0 + 200, opened_at: T0 + 200, until: T0 + 200 + POLICY.cooldown_ms });
    expect(breakerView(b, T0 + 200)).toBe("open");
  });

  it("counts a failure exactly window_ms old but not one a millisecond older", () => {
    const now = T0 + POLICY.window_ms;
    const atEdge = [sample(T0, false), sample(T0 + 5_000, false), sample(now, false)];
    expect(nextBreaker(CLOSED, atEdge[2], atEdge, POLICY, now).state).toBe("open");

    const tooOld = [sample(T0 - 1, false), sample(T0 + 5_000, false), sample(now, false)];
    expect(nextBreaker(CLOSED, tooOld[2], tooOld, POLICY, now)).toBe(CLOSED);
  });

  it("does not open when failures are spread wider than the window", () => {
    const spread = [
      sample(T0, false),
      sample(T0 + 6_000, false),
      sample(T0 + 12_000, false),
      sample(T0 + 18_000, false),
    ];
    expect(replay(CLOSED, spread)).toEqual(CLOSED);
  });

  it("ignores failures from before reset_at even inside the window", () => {
    const b: BreakerRecord = { state: "closed", reset_at: T0 + 1_000 };
    const recent = [sample(T0, false), sample(T0 + 500, false), sample(T0 + 2_000, false)];
    expect(nextBreaker(b, recent[2], recent, POLICY, T0 + 2_000)).toBe(b);

    // One more failure after reset_at would still leave only two that count.
    const more = [...recent, sample(T0 + 2_500, false)];
    expect(nextBreaker(b, more[3], more, POLICY, T0 + 2_500)).toBe(b);
    // A third one after reset_at opens it.
    const third = [...more, sample(T0 + 3_000, false)];
    expect(nextBreaker(b, third[4], third, POLICY, T0 + 3_000).state).toBe("open");
  });

  it("counts a failure at exactly reset_at", () => {
    const b: BreakerRecord = { state: "closed", reset_at: T0 };
    const recent = [sample(T0, false), sample(T0 + 1, false), sample(T0 + 2, false)];
    expect(nextBreaker(b, recent[2], recent, POLICY, T0 + 2).state).toBe("open");
  });

  it("is never opened by a success, however many failures came before it", () => {
    const recent = [
      sample(T0, false),
      sample(T0 + 1, false),
      sample(T0 + 2, false),
      sample(T0 + 3, false),
      sample(T0 + 4, true),
    ];
    expect(nextBreaker(CLOSED, recent[4], recent, POLICY, T0 + 4)).toBe(CLOSED);
  });

  it("does not count successes towards the threshold", () => {
    const mixed = [
      sample(T0, false),
      sample(T0 + 1, true),
      sample(T0 + 2, true),
      sample(T0 + 3, false),
      sample(T0 + 4, true),
    ];
    expect(replay(CLOSED, mixed)).toEqual(CLOSED);
  });
});

describe("nextBreaker: open", () => {
  it("ignores every sample while the cooldown runs", () => {
    const b = openAt(T0);
    const now = T0 + POLICY.cooldown_ms - 1;
    const failures = [0, 1, 2, 3].map((i) => sample(now - i, false));
    expect(nextBreaker(b, sample(now, false), failures, POLICY, now)).toBe(b);
    expect(nextBreaker(b, sample(now, true), [sample(now, true)], POLICY, now)).toBe(b);
  });

  it("decides on the next sample when a trial has been taken, even before until", () => {
    const b: BreakerRecord = { ...openAt(T0), trial_at: T0 + 1_000 };
    const now = T0 + 2_000;
    expect(breakerView(b, now)).toBe("open");
    expect(nextBreaker(b, sample(now, true), [sample(now, true)], POLICY, now)).toEqual({
      state: "closed",
      reset_at: now,
    });
    expect(nextBreaker(b, sample(now, false), [sample(now, false)], POLICY, now)).toEqual(openAt(now));
  });
});

describe("breakerView", () => {
  it("shows a closed record as closed at any time", () => {
    expect(breakerView(CLOSED, 0)).toBe("closed");
    expect(breakerView({ state: "closed", reset_at: T0 }, T0 + 1e9)).toBe("closed");
  });

  it("is open before until and half-open from until on", () => {
    const b = openAt(T0);
    expect(breakerView(b, T0)).toBe("open");
    expect(breakerView(b, T0 + POLICY.cooldown_ms - 1)).toBe("open");
    expect(breakerView(b, T0 + POLICY.cooldown_ms)).toBe("half_open");
    expect(breakerView(b, T0 + POLICY.cooldown_ms + 60_000)).toBe("half_open");
  });
});

describe("nextBreaker: half-open trial", () => {
  const opened = T0;
  const halfOpenAt = opened + POLICY.cooldown_ms;

  it("closes on a successful trial, with reset_at at the trial", () => {
    const trial = sample(halfOpenAt, true);
    const b = nextBreaker(openAt(opened), trial, [trial], POLICY, halfOpenAt);
    expect(b).toEqual({ state: "closed", reset_at: halfOpenAt });
    expect(breakerView(b, halfOpenAt)).toBe("closed");
  });

  it("does not reopen on one failure right after closing, though earlier failures are still in the window", () => {
    const history = [sample(opened - 200, false), sample(opened - 100, false), sample(opened, false)];
    const trial = sample(halfOpenAt, true);
    const closed = nextBreaker(openAt(opened), trial, [...history, trial], POLICY, halfOpenAt);
    expect(closed.state).toBe("closed");

    const next = sample(halfOpenAt + 1, false);
    const recent = [...history, trial, next];
    // Sanity: without the reset these three failures would be enough to open it.
    expect(nextBreaker({ state: "closed", reset_at: 0 }, next, recent, POLICY, halfOpenAt + 1).state).toBe("open");
    expect(nextBreaker(closed, next, recent, POLICY, halfOpenAt + 1)).toBe(closed);
  });

  it("reopens on a failed trial for a fresh cooldown, and drops the trial", () => {
    const now = halfOpenAt + 700;
    const b: BreakerRecord = { ...openAt(opened), trial_at: halfOpenAt + 100 };
    const next = nextBreaker(b, sample(now, false), [sample(now, false)], POLICY, now);
    expect(next).toEqual({ state: "open", reset_at: now, opened_at: now, until: now + POLICY.cooldown_ms });
    expect(next.trial_at).toBeUndefined();
    expect(breakerView(next, now + POLICY.cooldown_ms - 1)).toBe("open");
    expect(breakerView(next, now + POLICY.cooldown_ms)).toBe("half_open");
  });

  it("decides on a single failure in half-open, below the threshold", () => {
    const trial = sample(halfOpenAt, false);
    expect(nextBreaker(openAt(opened), trial, [trial], POLICY, halfOpenAt).state).toBe("open");
  });
});

describe("healthStats", () => {
  it("reports nulls and zero samples when nothing was measured", () => {
    expect(healthStats([])).toEqual({ p50_ms: null, error_rate: null, samples: 0 });
  });

  it("takes the middle latency of an odd number of successes, whatever their order", () => {
    const s = [sample(T0, true, 50), sample(T0, true, 10), sample(T0, true, 30)];
    expect(healthStats(s).p50_ms).toBe(30);
  });

  it("averages the two middle latencies of an even number of successes", () => {
    const s = [sample(T0, true, 40), sample(T0, true, 10), sample(T0, true, 100), sample(T0, true, 20)];
    expect(healthStats(s).p50_ms).toBe(30);
  });

  it("sorts latencies numerically, not as strings", () => {
    const s = [sample(T0, true, 9), sample(T0, true, 100), sample(T0, true, 20)];
    expect(healthStats(s).p50_ms).toBe(20);
  });

  it("leaves failures out of p50 but counts them in the error rate", () => {
    const s = [
      sample(T0, true, 10),
      sample(T0, false, 9_000),
      sample(T0, true, 20),
      sample(T0, false, 8_000),
      sample(T0, true, 30),
    ];
    expect(healthStats(s)).toEqual({ p50_ms: 20, error_rate: 0.4, samples: 5 });
  });

  it("has a null p50 and an error rate of 1 when every call failed", () => {
    expect(healthStats([sample(T0, false, 5), sample(T0, false, 7)])).toEqual({
      p50_ms: null,
      error_rate: 1,
      samples: 2,
    });
  });

  it("has an error rate of 0 when every call succeeded", () => {
    expect(healthStats([sample(T0, true, 5)])).toEqual({ p50_ms: 5, error_rate: 0, samples: 1 });
  });
});
