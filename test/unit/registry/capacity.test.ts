/**
 * A provider's max_concurrency (docs/contract.md#waiting): declared in its manifest, carried into the catalog,
 * overridden (and un-overridden) by an operator in the snapshot edges plan from.
 */
import { describe, expect, it } from "vitest";
import type { ProviderManifest } from "../../../providers/sdk/protocol.ts";
import { buildCatalog, type ProviderLoad } from "../../../src/registry/catalog.ts";
import { composeSnapshot } from "../../../src/registry/compose.ts";

const load = (name: string, manifest: Partial<ProviderManifest>): ProviderLoad => ({
  config: { name, binding: name.toUpperCase(), trust: "system" },
  seq: 0,
  manifest: { provider: name, sdk_version: "1.1.0", tools: [], ...manifest },
});

const compose = (catalog: Awaited<ReturnType<typeof buildCatalog>>, overrides = new Map()) =>
  composeSnapshot({
    version: 1,
    built_at: 0,
    catalog,
    overrides,
    dead: new Map(),
    health: {},
    deprecations: new Map(),
    now: 0,
  });

describe("max_concurrency", () => {
  it("comes from the provider's manifest; none declared is no limit", async () => {
    const catalog = await buildCatalog([load("narrow", { max_concurrency: 1 }), load("wide", {})], () => true);
    expect(catalog.providers.map((p) => [p.name, p.max_concurrency])).toEqual([
      ["narrow", 1],
      ["wide", undefined],
    ]);
  });

  it("ignores a malformed declaration and says so among the registry's problems", async () => {
    const catalog = await buildCatalog([load("odd", { max_concurrency: 0 })], () => true);
    expect(catalog.providers[0].max_concurrency).toBeUndefined();
    expect(catalog.problems.join()).toMatch(/odd: max_concurrency 0/);
  });

  it("takes an operator's override over the manifest's, and the manifest's again when the override is null", async () => {
    const catalog = await buildCatalog([load("narrow", { max_concurrency: 4 }), load("wide", {})], () => true);
    const overridden = compose(
      catalog,
      new Map([
        ["narrow", { max_concurrency: 1 }],
        ["wide", { max_concurrency: 2 }],
      ]),
    );
    expect(overridden.providers.map((p) => p.max_concurrency)).toEqual([1, 2]);
    const lifted = compose(
      catalog,
      new Map([
        ["narrow", { max_concurrency: null }],
        ["wide", { max_concurrency: null }],
      ]),
    );
    expect(lifted.providers.map((p) => p.max_concurrency)).toEqual([4, undefined]);
  });
});
