import { describe, expect, it } from "vitest";
import type { CatalogTool, Offering, RegistrySnapshot } from "../../../src/registry/catalog.ts";
import {
  bundleNames,
  bundlesInView,
  inBundle,
  parseBundle,
  toolInView,
  type Bundle,
} from "../../../src/registry/bundles.ts";
import { RuntimeError } from "../../../src/errors.ts";

const NOW = Date.UTC(2026, 11, 1);

function tool(name: string, providers: string[], tags?: string[]): CatalogTool {
  const offerings = providers.map((provider) => ({ provider, manifest: { tags } }) as Offering);
  return { name, active_version: "1.0.0", versions: { "1.0.0": offerings } };
}

function bundle(name: string, fields: Partial<Bundle>): Bundle {
  return { ...parseBundle(name, { tools: ["placeholder"] }, NOW), tools: [], ...fields };
}

function snapshot(bundles: Bundle[], tools: CatalogTool[]): RegistrySnapshot {
  return {
    version: 1,
    built_at: NOW,
    providers: [],
    tools: Object.fromEntries(tools.map((t) => [t.name, t])),
    problems: [],
    health: {},
    deprecations: {},
    bundles: Object.fromEntries(bundles.map((b) => [b.name, b])),
  };
}

function refusal(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return (err as RuntimeError).toBody();
  }
  throw new Error("not refused");
}

describe("parseBundle", () => {
  it("keeps each selector list sorted and without duplicates, and stamps the time", () => {
    expect(parseBundle("a-1", { tools: ["b", "a", "b"], prefixes: ["text."] }, NOW)).toEqual({
      name: "a-1",
      description: null,
      tools: ["a", "b"],
      prefixes: ["text."],
      channels: [],
      tags: [],
      discovery: "list",
      updated_at: "2026-12-01T00:00:00.000Z",
    });
  });

  it("takes tags alone as a selector, sorted and without duplicates", () => {
    expect(parseBundle("a", { tags: ["web", "maths", "web"] }, NOW)).toMatchObject({
      tools: [],
      tags: ["maths", "web"],
    });
  });

  it("takes discovery list or search", () => {
    expect(parseBundle("a", { tools: ["x"], discovery: "search" }, NOW).discovery).toBe("search");
    expect(parseBundle("a", { tools: ["x"], discovery: "list" }, NOW).discovery).toBe("list");
  });

  it.each([
    ["-a", { tools: ["x"] }, "name"],
    ["a-", { tools: ["x"] }, "name"],
    ["A", { tools: ["x"] }, "name"],
    ["a".repeat(65), { tools: ["x"] }, "name"],
    ["a", { tools: [] }, "tools"],
    ["a", { channels: [1] }, "channels"],
    ["a", { tags: [] }, "tools"],
    ["a", { tools: ["x"], tags: ["Maths"] }, "tags"],
    ["a", { tools: ["x"], tags: ["web-"] }, "tags"],
    ["a", { tools: ["x"], tags: ["x".repeat(33)] }, "tags"],
    ["a", { tools: ["x"], tags: "maths" }, "tags"],
    ["a", { tools: ["x"], tags: Array.from({ length: 201 }, (_, i) => `t${i}`) }, "tags"],
    ["a", { tools: ["x"], labels: ["maths"] }, "labels"],
    ["a", { tools: ["x"], description: "d".repeat(1001) }, "description"],
    ["a", { tools: ["x"], discovery: "embeddings" }, "discovery"],
    ["a", { tools: ["x"], discovery: null }, "discovery"],
  ])("refuses %s %j naming %s", (name, body, field) => {
    expect(refusal(() => parseBundle(name, body, NOW))).toMatchObject({ code: "invalid_request", details: { field } });
  });

  it("takes a name of 64 characters", () => {
    expect(parseBundle("a".repeat(64), { tools: ["x"] }, NOW).name).toHaveLength(64);
  });
});

describe("inBundle", () => {
  const echo = tool("lab.echo", ["lab", "lab-twin"]);
  it("matches by exact name, by prefix and by a provider that offers it", () => {
    expect(inBundle(bundle("b", { tools: ["lab.echo"] }), echo)).toBe(true);
    expect(inBundle(bundle("b", { tools: ["lab.ech"] }), echo)).toBe(false);
    expect(inBundle(bundle("b", { prefixes: ["lab."] }), echo)).toBe(true);
    expect(inBundle(bundle("b", { prefixes: ["text."] }), echo)).toBe(false);
    expect(inBundle(bundle("b", { channels: ["lab-twin"] }), echo)).toBe(true);
    expect(inBundle(bundle("b", { channels: ["std"] }), echo)).toBe(false);
  });

  it("matches by a tag that any version's offering carries", () => {
    const stats: CatalogTool = {
      name: "text.stats",
      active_version: "1.1.0",
      versions: {
        "1.0.0": [{ provider: "community", manifest: { tags: ["text", "community-made"] } } as Offering],
        "1.1.0": [{ provider: "std", manifest: { tags: ["text"] } } as Offering],
      },
    };
    expect(inBundle(bundle("b", { tags: ["text"] }), stats)).toBe(true);
    expect(inBundle(bundle("b", { tags: ["maths", "community-made"] }), stats)).toBe(true);
    expect(inBundle(bundle("b", { tags: ["maths"] }), stats)).toBe(false);
    // An offering with no tags (an upstream's tool, a manifest from before tags) matches none.
    expect(inBundle(bundle("b", { tags: ["text"] }), echo)).toBe(false);
    // A bundle from a snapshot built before tags has no list.
    const { tags: _, ...old } = bundle("b", { channels: ["std"] });
    expect(inBundle(old as Bundle, stats)).toBe(true);
    expect(inBundle(old as Bundle, echo)).toBe(false);
  });
});

describe("bundlesInView", () => {
  const maths = bundle("maths", { tools: ["math.evaluate"] });
  const text = bundle("text", { prefixes: ["text."] });
  const snap = snapshot([maths, text], [tool("math.evaluate", ["std"]), tool("text.stats", ["std"])]);

  it("is the path's bundle, or null when there is none of that name (own keys only)", () => {
    expect(bundlesInView(snap, "t1", "maths", undefined)).toEqual([maths]);
    expect(bundlesInView(snap, "t1", "nope", undefined)).toBeNull();
    expect(bundlesInView(snap, "t1", "constructor", undefined)).toBeNull();
    expect(bundlesInView(snap, "t1", "Bad/Name", undefined)).toBeNull();
  });

  it("for a limited key: its existing bundles on /mcp, one of them on /mcp/{name}, any other null", () => {
    expect(bundlesInView(snap, "t1", undefined, ["maths", "gone"])).toEqual([maths]);
    expect(bundlesInView(snap, "t1", "maths", ["maths"])).toEqual([maths]);
    expect(bundlesInView(snap, "t1", "text", ["maths"])).toBeNull();
    expect(bundlesInView(snap, "t1", undefined, undefined)).toBeUndefined();
  });

  it("resolves the caller's tenant's own bundle first, never another tenant's", () => {
    const own = bundle("maths", { tools: ["text.stats"] });
    const mine = bundle("mine", { tools: ["text.stats"] });
    const withTenants = { ...snap, tenant_bundles: { t1: { maths: own, mine }, constructor: { mine } } };
    expect(bundlesInView(withTenants, "t1", "maths", undefined)).toEqual([own]);
    expect(bundlesInView(withTenants, "t2", "maths", undefined)).toEqual([maths]);
    expect(bundlesInView(withTenants, "t2", "mine", undefined)).toBeNull();
    expect(bundlesInView(withTenants, "t1", undefined, ["mine", "text"])).toEqual([mine, text]);
    expect(bundleNames(withTenants, "t1")).toEqual(["maths", "mine", "text"]);
    expect(bundleNames(withTenants, "t2")).toEqual(["maths", "text"]);
  });

  it("puts a tool in view when any bundle holds it, and an unknown tool in none", () => {
    expect(toolInView([maths, text], snap, "text.stats")).toBe(true);
    expect(toolInView([maths], snap, "text.stats")).toBe(false);
    expect(toolInView([bundle("x", { tools: ["no.such"] })], snap, "no.such")).toBe(false);
    expect(toolInView([], snap, "math.evaluate")).toBe(false);
  });
});
