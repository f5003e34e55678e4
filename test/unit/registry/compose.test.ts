import { describe, expect, it } from "vitest";
import type { ToolManifestEntry } from "../../../providers/sdk/protocol.ts";
import type { Trust } from "../../../src/contract.ts";
import type {
  CatalogTool,
  DeprecationNotice,
  Offering,
  OfferingHealth,
  ProviderState,
} from "../../../src/registry/catalog.ts";
import { healthKey } from "../../../src/registry/catalog.ts";
import { composeSnapshot, pastSunset, type ComposeInput } from "../../../src/registry/compose.ts";
import { CLOSED, DEFAULT_BREAKER } from "../../../src/registry/provider-health.ts";
import { rankProviders } from "../../../src/registry/rank.ts";

const NOW = Date.UTC(2026, 5, 1, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

function provider(name: string, trust: Trust, seq: number): ProviderState {
  return { name, binding: name.toUpperCase(), trust, seq, reachable: true, tools: 1 };
}

function offering(p: ProviderState, tool: string, version: string): Offering {
  const manifest = { name: tool, version } as ToolManifestEntry;
  return {
    provider: p.name,
    binding: p.binding,
    trust: p.trust,
    seq: p.seq,
    manifest,
    input_hash: "in",
    output_hash: "out",
  };
}

/** A tool offered by each provider at each version; active version as the catalog computed it. */
function tool(name: string, versions: string[], providers: ProviderState[], active_version: string): CatalogTool {
  return {
    name,
    active_version,
    versions: Object.fromEntries(versions.map((v) => [v, providers.map((p) => offering(p, name, v))])),
  };
}

function deprecation(sunset: number): DeprecationNotice {
  return { sunset: iso(sunset), replacement: null, deprecated_at: iso(NOW - 86_400_000) };
}

function input(over: Partial<ComposeInput> & Pick<ComposeInput, "catalog">): ComposeInput {
  return {
    version: 7,
    built_at: NOW,
    overrides: new Map(),
    dead: new Map(),
    health: {},
    deprecations: new Map(),
    now: NOW,
    ...over,
  };
}

describe("composeSnapshot: operator overrides", () => {
  it("applies a trust override to the provider and to every one of its offerings, so ranking sees it", () => {
    const sys = provider("sys", "system", 0);
    const comm = provider("comm", "community", 1);
    const catalog = {
      providers: [sys, comm],
      tools: {
        "a.tool": tool("a.tool", ["1.0.0", "2.0.0"], [sys, comm], "2.0.0"),
        "b.tool": tool("b.tool", ["0.1.0"], [comm], "0.1.0"),
      },
      problems: [],
    };
    const snap = composeSnapshot(input({ catalog, overrides: new Map([["comm", { trust: "system" as const }]]) }));

    expect(snap.providers.find((p) => p.name === "comm")!.trust).toBe("system");
    const commOfferings = Object.values(snap.tools)
      .flatMap((t) => Object.values(t.versions).flat())
      .filter((o) => o.provider === "comm");
    expect(commOfferings).toHaveLength(3);
    expect(commOfferings.every((o) => o.trust === "system")).toBe(true);
    // Other providers keep theirs.
    expect(snap.tools["a.tool"].versions["1.0.0"].find((o) => o.provider === "sys")!.trust).toBe("system");

    // Both now "system": the tie goes to p50, where comm is faster.
    const stats = { sys: { p50_ms: 90, error_rate: 0 }, comm: { p50_ms: 10, error_rate: 0 } };
    expect(rankProviders(catalog.tools["a.tool"].versions["2.0.0"], { stats }).map((r) => r.offering.provider)).toEqual(
      ["sys", "comm"],
    );
    expect(rankProviders(snap.tools["a.tool"].versions["2.0.0"], { stats }).map((r) => r.offering.provider)).toEqual([
      "comm",
      "sys",
    ]);
  });

  it("can lower a provider's trust", () => {
    const sys = provider("sys", "system", 0);
    const ver = provider("ver", "verified", 1);
    const catalog = {
      providers: [sys, ver],
      tools: { "a.tool": tool("a.tool", ["1.0.0"], [sys, ver], "1.0.0") },
      problems: [],
    };
    const snap = composeSnapshot(input({ catalog, overrides: new Map([["sys", { trust: "community" as const }]]) }));
    expect(snap.providers.map((p) => [p.name, p.trust])).toEqual([
      ["sys", "community"],
      ["ver", "verified"],
    ]);
    expect(rankProviders(snap.tools["a.tool"].versions["1.0.0"]).map((r) => r.offering.provider)).toEqual([
      "ver",
      "sys",
    ]);
  });

  it("leaves the loaded catalog it was given unchanged", () => {
    const comm = provider("comm", "community", 0);
    const catalog = {
      providers: [comm],
      tools: { "a.tool": tool("a.tool", ["1.0.0"], [comm], "1.0.0") },
      problems: [],
    };
    composeSnapshot(input({ catalog, overrides: new Map([["comm", { trust: "system" as const, disabled: true }]]) }));
    expect(catalog.providers[0].trust).toBe("community");
    expect(catalog.providers[0].disabled).toBeUndefined();
    expect(catalog.tools["a.tool"].versions["1.0.0"][0].trust).toBe("community");
  });

  it("marks a provider disabled only when an operator disabled it", () => {
    const a = provider("a", "verified", 0);
    const b = provider("b", "verified", 1);
    const c = provider("c", "verified", 2);
    const catalog = { providers: [a, b, c], tools: {}, problems: [] };
    const snap = composeSnapshot(
      input({
        catalog,
        overrides: new Map([
          ["a", { disabled: true }],
          ["b", { disabled: false }],
        ]),
      }),
    );
    expect(snap.providers.map((p) => p.disabled)).toEqual([true, undefined, undefined]);
    expect(snap.providers.map((p) => p.trust)).toEqual(["verified", "verified", "verified"]);
  });

  it("marks dead providers with when and why", () => {
    const a = provider("a", "verified", 0);
    const b = provider("b", "verified", 1);
    const dead = { since: NOW - 1_000, reason: "manifest() threw" };
    const snap = composeSnapshot(
      input({ catalog: { providers: [a, b], tools: {}, problems: [] }, dead: new Map([["b", dead]]) }),
    );
    expect(snap.providers.find((p) => p.name === "a")!.dead).toBeUndefined();
    expect(snap.providers.find((p) => p.name === "b")!.dead).toEqual(dead);
  });

  it("carries version, build time, problems, health and deprecations through", () => {
    const a = provider("a", "verified", 0);
    const health: Record<string, OfferingHealth> = {
      [healthKey("a", "a.tool")]: {
        p50_ms: 12,
        error_rate: 0.1,
        samples: 10,
        breaker: CLOSED,
        policy: DEFAULT_BREAKER,
      },
    };
    const notice = deprecation(NOW + 60_000);
    const snap = composeSnapshot(
      input({
        version: 42,
        built_at: NOW - 5,
        catalog: {
          providers: [a],
          tools: { "a.tool": tool("a.tool", ["1.0.0"], [a], "1.0.0") },
          problems: ["x: left out"],
        },
        health,
        deprecations: new Map([["a.tool@1.0.0", notice]]),
      }),
    );
    expect(snap.version).toBe(42);
    expect(snap.built_at).toBe(NOW - 5);
    expect(snap.problems).toEqual(["x: left out"]);
    expect(snap.health).toEqual(health);
    expect(snap.deprecations).toEqual({ "a.tool@1.0.0": notice });
  });
});

describe("composeSnapshot: deprecation and the active version (docs/contract.md#resolution)", () => {
  const p = provider("p", "verified", 0);
  const versions = ["1.0.0", "1.5.0", "2.0.0", "2.1.0-beta.1"];
  const catalog = () => ({ providers: [p], tools: { "a.tool": tool("a.tool", versions, [p], "2.0.0") }, problems: [] });

  it("keeps the highest release active when nothing is deprecated", () => {
    expect(composeSnapshot(input({ catalog: catalog() })).tools["a.tool"].active_version).toBe("2.0.0");
  });

  it("keeps a deprecated version active until its sunset", () => {
    const snap = composeSnapshot(
      input({ catalog: catalog(), deprecations: new Map([["a.tool@2.0.0", deprecation(NOW + 1)]]) }),
    );
    expect(snap.tools["a.tool"].active_version).toBe("2.0.0");
  });

  it("moves the active version to the next-highest live release once the active one is past its sunset", () => {
    const snap = composeSnapshot(
      input({ catalog: catalog(), deprecations: new Map([["a.tool@2.0.0", deprecation(NOW - 1)]]) }),
    );
    expect(snap.tools["a.tool"].active_version).toBe("1.5.0");
    // The sunset version is still listed: callers that name it get tool_deprecated, not tool_not_found.
    expect(Object.keys(snap.tools["a.tool"].versions)).toEqual(versions);
  });

  it("counts a sunset at exactly now as past", () => {
    const snap = composeSnapshot(
      input({ catalog: catalog(), deprecations: new Map([["a.tool@2.0.0", deprecation(NOW)]]) }),
    );
    expect(snap.tools["a.tool"].active_version).toBe("1.5.0");
  });

  it("skips every sunset version, not just the highest", () => {
    const deprecations = new Map([
      ["a.tool@2.0.0", deprecation(NOW - 1)],
      ["a.tool@1.5.0", deprecation(NOW - 1)],
    ]);
    expect(composeSnapshot(input({ catalog: catalog(), deprecations })).tools["a.tool"].active_version).toBe("1.0.0");
  });

  it("falls back to the highest prerelease when every release is past its sunset", () => {
    const deprecations = new Map(
      ["1.0.0", "1.5.0", "2.0.0"].map((v) => [`a.tool@${v}`, deprecation(NOW - 1)] as const),
    );
    expect(composeSnapshot(input({ catalog: catalog(), deprecations })).tools["a.tool"].active_version).toBe(
      "2.1.0-beta.1",
    );
  });

  it("keeps the catalog's active version when every version is past its sunset", () => {
    const deprecations = new Map(versions.map((v) => [`a.tool@${v}`, deprecation(NOW - 1)] as const));
    expect(composeSnapshot(input({ catalog: catalog(), deprecations })).tools["a.tool"].active_version).toBe("2.0.0");
  });

  it("applies a deprecation only to the tool it names", () => {
    const cat = catalog();
    const other = { ...cat, tools: { ...cat.tools, "b.tool": tool("b.tool", ["1.0.0", "2.0.0"], [p], "2.0.0") } };
    const snap = composeSnapshot(
      input({ catalog: other, deprecations: new Map([["a.tool@2.0.0", deprecation(NOW - 1)]]) }),
    );
    expect(snap.tools["a.tool"].active_version).toBe("1.5.0");
    expect(snap.tools["b.tool"].active_version).toBe("2.0.0");
  });
});

describe("pastSunset", () => {
  it("is false without a deprecation notice", () => {
    expect(pastSunset(undefined, NOW)).toBe(false);
  });

  it("is false before the sunset and true at and after it", () => {
    const d = deprecation(NOW);
    expect(pastSunset(d, NOW - 1)).toBe(false);
    expect(pastSunset(d, NOW)).toBe(true);
    expect(pastSunset(d, NOW + 1)).toBe(true);
  });

  it("reads a sunset written with an offset", () => {
    const d: DeprecationNotice = {
      sunset: "2026-06-01T14:00:00+02:00",
      replacement: "a.tool@2.0.0",
      deprecated_at: iso(NOW),
    };
    expect(pastSunset(d, NOW - 1)).toBe(false);
    expect(pastSunset(d, NOW)).toBe(true);
  });
});
