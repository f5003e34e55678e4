import { describe, expect, it } from "vitest";
import type { ToolManifestEntry } from "../../../providers/sdk/protocol.ts";
import type { Trust } from "../../../src/contract.ts";
import type { Offering } from "../../../src/registry/catalog.ts";
import { rankProviders, type ProviderStats } from "../../../src/registry/rank.ts";

const manifest = { name: "t.tool", version: "1.0.0" } as ToolManifestEntry;

function offering(provider: string, trust: Trust, seq: number): Offering {
  return { provider, binding: provider.toUpperCase(), trust, seq, manifest, input_hash: "in", output_hash: "out" };
}

const order = (ranked: ReturnType<typeof rankProviders>) => ranked.map((r) => r.offering.provider);

describe("rankProviders: explicit provider (docs/contract.md#ranking criterion 1)", () => {
  it("returns only the named provider, even when another outranks it", () => {
    const offerings = [offering("sys", "system", 0), offering("comm", "community", 1)];
    const ranked = rankProviders(offerings, { explicit: "comm", stats: { sys: { p50_ms: 1, error_rate: 0 } } });
    expect(order(ranked)).toEqual(["comm"]);
    expect(ranked[0].reason).toContain("named by the caller");
  });

  it("returns an empty list for an explicit provider that does not offer the tool, with no fall-back", () => {
    const offerings = [offering("sys", "system", 0), offering("comm", "community", 1)];
    expect(rankProviders(offerings, { explicit: "ghost" })).toEqual([]);
  });
});

describe("rankProviders: trust (criterion 2)", () => {
  it("orders system before verified before community regardless of input order", () => {
    const offerings = [offering("c", "community", 0), offering("v", "verified", 1), offering("s", "system", 2)];
    const ranked = rankProviders(offerings);
    expect(order(ranked)).toEqual(["s", "v", "c"]);
    expect(ranked[0].reason).toContain("trust system > verified");
    expect(ranked[1].reason).toContain("trust verified > community");
  });

  it("puts higher trust first even when the lower-trust provider is faster, more reliable and older", () => {
    const offerings = [offering("fast", "community", 0), offering("slow", "verified", 9)];
    const stats = { fast: { p50_ms: 1, error_rate: 0 }, slow: { p50_ms: 900, error_rate: 0.5 } };
    const ranked = rankProviders(offerings, { stats });
    expect(order(ranked)).toEqual(["slow", "fast"]);
    expect(ranked[0].reason).toMatch(/^trust/);
  });
});

describe("rankProviders: historical p50 (criterion 3)", () => {
  it("prefers the lower p50 among providers of equal trust", () => {
    const offerings = [offering("a", "verified", 0), offering("b", "verified", 1)];
    const ranked = rankProviders(offerings, {
      stats: { a: { p50_ms: 80, error_rate: 0 }, b: { p50_ms: 20, error_rate: 0.9 } },
    });
    expect(order(ranked)).toEqual(["b", "a"]);
    expect(ranked[0].reason).toBe("p50 20ms < 80ms (vs a)");
  });

  it("sorts a provider with unknown p50 after one with a known p50", () => {
    const offerings = [offering("unknown", "system", 0), offering("known", "system", 1)];
    const ranked = rankProviders(offerings, { stats: { known: { p50_ms: 5_000, error_rate: null } } });
    expect(order(ranked)).toEqual(["known", "unknown"]);
    expect(ranked[0].reason).toContain("p50 5000ms < unknown");
  });

  it("treats a null p50 like a missing one", () => {
    const offerings = [offering("nullish", "system", 0), offering("known", "system", 1)];
    const stats = { nullish: { p50_ms: null, error_rate: 0 }, known: { p50_ms: 10, error_rate: 0 } };
    expect(order(rankProviders(offerings, { stats }))).toEqual(["known", "nullish"]);
  });
});

describe("rankProviders: error rate (criterion 4)", () => {
  it("prefers the lower error rate when trust and p50 tie", () => {
    const offerings = [offering("flaky", "verified", 0), offering("solid", "verified", 1)];
    const stats = { flaky: { p50_ms: 50, error_rate: 0.2 }, solid: { p50_ms: 50, error_rate: 0.01 } };
    const ranked = rankProviders(offerings, { stats });
    expect(order(ranked)).toEqual(["solid", "flaky"]);
    expect(ranked[0].reason).toBe("error rate 0.01 < 0.2 (vs flaky)");
  });

  it("sorts an unknown error rate after a known one when p50 ties", () => {
    const offerings = [offering("new", "verified", 0), offering("old", "verified", 1)];
    const stats = { new: { p50_ms: 50, error_rate: null }, old: { p50_ms: 50, error_rate: 0.5 } };
    const ranked = rankProviders(offerings, { stats });
    expect(order(ranked)).toEqual(["old", "new"]);
    expect(ranked[0].reason).toContain("error rate");
  });
});

describe("rankProviders: registration order (criterion 5)", () => {
  it("breaks a full tie by registration order, earlier first", () => {
    const offerings = [offering("late", "community", 7), offering("early", "community", 3)];
    const stats: Record<string, ProviderStats> = {
      late: { p50_ms: 10, error_rate: 0.1 },
      early: { p50_ms: 10, error_rate: 0.1 },
    };
    const ranked = rankProviders(offerings, { stats });
    expect(order(ranked)).toEqual(["early", "late"]);
    expect(ranked[0].reason).toBe("registered earlier (vs late)");
  });

  it("breaks a tie by registration order when no stats are known at all", () => {
    const offerings = [offering("b", "system", 2), offering("a", "system", 1), offering("c", "system", 3)];
    expect(order(rankProviders(offerings))).toEqual(["a", "b", "c"]);
  });
});

describe("rankProviders: combined and reasons", () => {
  it("applies the criteria in priority order across a mixed field", () => {
    const offerings = [
      offering("comm-fast", "community", 0),
      offering("ver-slow", "verified", 1),
      offering("ver-fast-flaky", "verified", 2),
      offering("ver-fast-solid-late", "verified", 4),
      offering("ver-fast-solid-early", "verified", 3),
      offering("sys-unknown", "system", 5),
    ];
    const stats: Record<string, ProviderStats> = {
      "comm-fast": { p50_ms: 1, error_rate: 0 },
      "ver-slow": { p50_ms: 300, error_rate: 0 },
      "ver-fast-flaky": { p50_ms: 30, error_rate: 0.3 },
      "ver-fast-solid-late": { p50_ms: 30, error_rate: 0.01 },
      "ver-fast-solid-early": { p50_ms: 30, error_rate: 0.01 },
    };
    const ranked = rankProviders(offerings, { stats });
    expect(order(ranked)).toEqual([
      "sys-unknown",
      "ver-fast-solid-early",
      "ver-fast-solid-late",
      "ver-fast-flaky",
      "ver-slow",
      "comm-fast",
    ]);
    expect(ranked.map((r) => r.reason.split(" ")[0])).toEqual(["trust", "registered", "error", "p50", "trust", "last"]);
  });

  it("calls a lone offering the only provider", () => {
    const ranked = rankProviders([offering("solo", "community", 0)]);
    expect(ranked).toEqual([{ offering: expect.objectContaining({ provider: "solo" }), reason: "only provider" }]);
  });

  it("calls the lowest-ranked of several the last choice", () => {
    const ranked = rankProviders([offering("a", "system", 0), offering("b", "community", 1)]);
    expect(ranked[1].reason).toBe("last choice");
  });

  it("returns an empty list for no offerings", () => {
    expect(rankProviders([])).toEqual([]);
  });

  it("does not reorder the caller's array", () => {
    const offerings = [offering("c", "community", 0), offering("s", "system", 1)];
    rankProviders(offerings);
    expect(offerings.map((o) => o.provider)).toEqual(["c", "s"]);
  });
});
