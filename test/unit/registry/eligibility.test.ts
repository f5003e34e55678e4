import { describe, expect, it } from "vitest";
import type { ToolManifestEntry } from "../../../providers/sdk/protocol.ts";
import type { Trust } from "../../../src/contract.ts";
import {
  healthKey,
  type Offering,
  type OfferingHealth,
  type ProviderState,
  type RegistrySnapshot,
} from "../../../src/registry/catalog.ts";
import {
  DEAD_RETRY_MS,
  breakerStateOf,
  nextClockChange,
  partitionOfferings,
  statsFor,
} from "../../../src/registry/eligibility.ts";
import type { BreakerPolicy, BreakerRecord } from "../../../src/registry/provider-health.ts";

const TOOL = "t.tool";
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);
const POLICY: BreakerPolicy = { failures: 5, window_ms: 30_000, cooldown_ms: 30_000 };

function offering(provider: string, tool = TOOL, version = "1.0.0", trust: Trust = "verified"): Offering {
  const manifest = { name: tool, version } as ToolManifestEntry;
  return { provider, binding: provider.toUpperCase(), trust, seq: 0, manifest, input_hash: "in", output_hash: "out" };
}

function provider(name: string, extra: Partial<ProviderState> = {}): ProviderState {
  return { name, binding: name.toUpperCase(), trust: "verified", seq: 0, reachable: true, tools: 1, ...extra };
}

function health(breaker: BreakerRecord, stats: Partial<OfferingHealth> = {}): OfferingHealth {
  return { p50_ms: 20, error_rate: 0, samples: 10, breaker, policy: POLICY, ...stats };
}

function snapshot(providers: ProviderState[], healthEntries: Record<string, OfferingHealth> = {}): RegistrySnapshot {
  return {
    version: 1,
    built_at: NOW - 60_000,
    providers,
    tools: {},
    problems: [],
    health: healthEntries,
    deprecations: {},
  };
}

/** Opened `ago` ms before NOW with POLICY's cooldown. */
function opened(ago: number, trial_at?: number): BreakerRecord {
  const at = NOW - ago;
  return {
    state: "open",
    reset_at: at,
    opened_at: at,
    until: at + POLICY.cooldown_ms,
    ...(trial_at !== undefined ? { trial_at } : {}),
  };
}

const providersOf = (xs: { offering: Offering }[]) => xs.map((x) => x.offering.provider);

describe("partitionOfferings: providers", () => {
  it("keeps a provider with no health entry, not as a trial", () => {
    const o = offering("fresh");
    const { eligible, excluded } = partitionOfferings([o], snapshot([provider("fresh")]), NOW);
    expect(eligible).toEqual([{ offering: o, trial: false }]);
    expect(excluded).toEqual([]);
  });

  it("keeps an offering whose provider is not in the snapshot's provider list", () => {
    const { eligible } = partitionOfferings([offering("unlisted")], snapshot([]), NOW);
    expect(providersOf(eligible)).toEqual(["unlisted"]);
  });

  it("excludes a provider an operator disabled, saying so, with no retry time", () => {
    const o = offering("off");
    const { eligible, excluded } = partitionOfferings([o], snapshot([provider("off", { disabled: true })]), NOW);
    expect(eligible).toEqual([]);
    expect(excluded).toEqual([{ offering: o, reason: "disabled by an operator" }]);
    expect(excluded[0].retry_at).toBeUndefined();
  });

  it("excludes a dead provider until DEAD_RETRY_MS after it died, naming when and why", () => {
    const since = NOW - 5_000;
    const o = offering("gone");
    const snap = snapshot([provider("gone", { dead: { since, reason: "binding threw" } })]);
    const { eligible, excluded } = partitionOfferings([o], snap, NOW);
    expect(eligible).toEqual([]);
    expect(excluded).toHaveLength(1);
    expect(excluded[0].retry_at).toBe(since + DEAD_RETRY_MS);
    expect(excluded[0].reason).toBe(`dead since ${new Date(since).toISOString()}: binding threw`);
  });

  it("reports a disabled provider as disabled even when it is also dead", () => {
    const snap = snapshot([provider("both", { disabled: true, dead: { since: NOW, reason: "x" } })]);
    const { excluded } = partitionOfferings([offering("both")], snap, NOW);
    expect(excluded.map((e) => e.reason)).toEqual(["disabled by an operator"]);
  });

  it("keeps eligible and excluded offerings in input order", () => {
    const snap = snapshot([
      provider("a"),
      provider("b", { disabled: true }),
      provider("c"),
      provider("d", { dead: { since: NOW, reason: "x" } }),
    ]);
    const { eligible, excluded } = partitionOfferings(
      ["a", "b", "c", "d"].map((p) => offering(p)),
      snap,
      NOW,
    );
    expect(providersOf(eligible)).toEqual(["a", "c"]);
    expect(providersOf(excluded)).toEqual(["b", "d"]);
  });
});

describe("partitionOfferings: circuit breaker (docs/contract.md#circuit-breakers)", () => {
  it("keeps an offering whose breaker is closed, not as a trial", () => {
    const snap = snapshot([provider("p")], { [healthKey("p", TOOL)]: health({ state: "closed", reset_at: NOW - 1 }) });
    expect(partitionOfferings([offering("p")], snap, NOW).eligible).toEqual([
      { offering: offering("p"), trial: false },
    ]);
  });

  it("excludes an offering whose breaker is open, retrying when the cooldown ends", () => {
    const b = opened(10_000);
    const snap = snapshot([provider("p")], { [healthKey("p", TOOL)]: health(b) });
    const { eligible, excluded } = partitionOfferings([offering("p")], snap, NOW);
    expect(eligible).toEqual([]);
    expect(excluded).toHaveLength(1);
    expect(excluded[0].retry_at).toBe(b.until);
    expect(excluded[0].reason).toBe(`circuit open until ${new Date(b.until!).toISOString()}`);
  });

  it("offers a half-open offering whose trial nobody took as the trial", () => {
    const snap = snapshot([provider("p")], { [healthKey("p", TOOL)]: health(opened(POLICY.cooldown_ms)) });
    const { eligible, excluded } = partitionOfferings([offering("p")], snap, NOW);
    expect(eligible).toEqual([{ offering: offering("p"), trial: true }]);
    expect(excluded).toEqual([]);
  });

  it("excludes a half-open offering while its trial is under way", () => {
    const trial_at = NOW - 1_000;
    const snap = snapshot([provider("p")], {
      [healthKey("p", TOOL)]: health(opened(POLICY.cooldown_ms + 2_000, trial_at)),
    });
    const { eligible, excluded } = partitionOfferings([offering("p")], snap, NOW);
    expect(eligible).toEqual([]);
    expect(excluded).toHaveLength(1);
    expect(excluded[0].reason).toBe("circuit half-open, its trial call is under way");
    expect(excluded[0].retry_at).toBe(trial_at + POLICY.cooldown_ms);
  });

  it("offers the trial again once the taken trial is a cooldown old, but not a millisecond sooner", () => {
    const b = opened(3 * POLICY.cooldown_ms, NOW - POLICY.cooldown_ms);
    const snap = snapshot([provider("p")], { [healthKey("p", TOOL)]: health(b) });
    expect(partitionOfferings([offering("p")], snap, NOW).eligible).toEqual([{ offering: offering("p"), trial: true }]);
    expect(partitionOfferings([offering("p")], snap, NOW - 1).eligible).toEqual([]);
  });

  it("times the taken trial out by the offering's own cooldown, not a default", () => {
    const short: BreakerPolicy = { ...POLICY, cooldown_ms: 1_000 };
    const b: BreakerRecord = {
      state: "open",
      reset_at: NOW - 10_000,
      opened_at: NOW - 10_000,
      until: NOW - 9_000,
      trial_at: NOW - 2_000,
    };
    const withShort = snapshot([provider("p")], { [healthKey("p", TOOL)]: { ...health(b), policy: short } });
    const withLong = snapshot([provider("p")], { [healthKey("p", TOOL)]: health(b) });
    expect(partitionOfferings([offering("p")], withShort, NOW).eligible).toEqual([
      { offering: offering("p"), trial: true },
    ]);
    expect(partitionOfferings([offering("p")], withLong, NOW).excluded[0].retry_at).toBe(
      NOW - 2_000 + POLICY.cooldown_ms,
    );
  });

  it("looks up the breaker by provider and tool name, across versions, and not another tool's", () => {
    const snap = snapshot([provider("p")], {
      [healthKey("p", "other.tool")]: health(opened(1_000)),
      [healthKey("p", TOOL)]: health({ state: "closed", reset_at: 0 }),
      [healthKey("q", TOOL)]: health(opened(1_000)),
    });
    const offerings = [
      offering("p", TOOL, "1.0.0"),
      offering("p", TOOL, "2.0.0"),
      offering("p", "other.tool"),
      offering("q", TOOL, "2.0.0"),
    ];
    const { eligible, excluded } = partitionOfferings(offerings, snap, NOW);
    expect(
      eligible.map((e) => `${e.offering.provider}:${e.offering.manifest.name}@${e.offering.manifest.version}`),
    ).toEqual(["p:t.tool@1.0.0", "p:t.tool@2.0.0"]);
    expect(excluded.map((e) => `${e.offering.provider}:${e.offering.manifest.name}`)).toEqual([
      "p:other.tool",
      "q:t.tool",
    ]);
  });
});

describe("statsFor", () => {
  it("gives p50 and error rate per provider of the tool, leaving out providers without health", () => {
    const snap = snapshot([provider("a"), provider("b"), provider("c")], {
      [healthKey("a", TOOL)]: health(opened(1_000), { p50_ms: 40, error_rate: 0.25 }),
      [healthKey("b", TOOL)]: health({ state: "closed", reset_at: 0 }, { p50_ms: null, error_rate: null, samples: 0 }),
      [healthKey("c", "other.tool")]: health({ state: "closed", reset_at: 0 }, { p50_ms: 1, error_rate: 0 }),
    });
    expect(statsFor(snap, TOOL)).toEqual({
      a: { p50_ms: 40, error_rate: 0.25 },
      b: { p50_ms: null, error_rate: null },
    });
  });

  it("ignores health for providers the snapshot does not list", () => {
    const snap = snapshot([provider("a")], { [healthKey("ghost", TOOL)]: health({ state: "closed", reset_at: 0 }) });
    expect(statsFor(snap, TOOL)).toEqual({});
  });
});

describe("breakerStateOf", () => {
  it("is closed for an offering with no health entry", () => {
    expect(breakerStateOf(snapshot([provider("p")]), "p", TOOL, NOW)).toBe("closed");
  });

  it("shows open during the cooldown and half-open after it, for that provider and tool only", () => {
    const b = opened(1_000);
    const snap = snapshot([provider("p")], { [healthKey("p", TOOL)]: health(b) });
    expect(breakerStateOf(snap, "p", TOOL, NOW)).toBe("open");
    expect(breakerStateOf(snap, "p", TOOL, b.until!)).toBe("half_open");
    expect(breakerStateOf(snap, "p", "other.tool", NOW)).toBe("closed");
    expect(breakerStateOf(snap, "q", TOOL, NOW)).toBe("closed");
  });
});

describe("nextClockChange: until when a snapshot's eligibility holds", () => {
  const key = (p: string) => healthKey(p, TOOL);

  it("is never when no breaker waits on the clock", () => {
    const closed: BreakerRecord = { state: "closed", reset_at: NOW - 5_000 };
    expect(nextClockChange(snapshot([provider("a")]), NOW)).toBe(Infinity);
    expect(nextClockChange(snapshot([provider("a")], { [key("a")]: health(closed) }), NOW)).toBe(Infinity);
    // Half-open with no trial under way: nothing changes by the clock alone.
    expect(nextClockChange(snapshot([provider("a")], { [key("a")]: health(opened(40_000)) }), NOW)).toBe(Infinity);
  });

  it("is the earliest end of a cooldown or a trial window, and each is where the partition changes", () => {
    const s = snapshot([provider("a"), provider("b")], {
      [key("a")]: health(opened(10_000)), // open until NOW + 20 s
      [key("b")]: health(opened(40_000, NOW - 25_000)), // half-open, its trial's window ends at NOW + 5 s
    });
    const next = nextClockChange(s, NOW);
    expect(next).toBe(NOW + 5_000);
    const offerings = [offering("a"), offering("b")];
    expect(providersOf(partitionOfferings(offerings, s, next - 1).eligible)).toEqual([]);
    expect(providersOf(partitionOfferings(offerings, s, next).eligible)).toEqual(["b"]);
    expect(nextClockChange(s, next)).toBe(NOW + 20_000);
    expect(providersOf(partitionOfferings(offerings, s, NOW + 20_000).eligible)).toEqual(["a", "b"]);
    expect(nextClockChange(s, NOW + 20_000)).toBe(Infinity);
  });
});
