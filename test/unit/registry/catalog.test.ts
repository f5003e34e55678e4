import { describe, expect, it } from "vitest";
import type { JsonSchema, ProviderManifest, ToolManifestEntry } from "../../../providers/sdk/protocol.ts";
import type { Trust } from "../../../src/contract.ts";
import { buildCatalog, type ProviderLoad } from "../../../src/registry/catalog.ts";
import { schemaHash } from "../../../src/schema/schema-hash.ts";

const IN: JsonSchema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const OUT: JsonSchema = { type: "object", properties: { text: { type: "string" } } };

function tool(name: string, version: string, overrides: Partial<ToolManifestEntry> = {}): ToolManifestEntry {
  return {
    name,
    version,
    description: `${name} ${version}`,
    input_schema: IN,
    output_schema: OUT,
    capability_required: null,
    idempotent: true,
    latency_class: "fast",
    effects: "read",
    coercion: "strict",
    ...overrides,
  };
}

function load(name: string, trust: Trust, seq: number, tools?: ToolManifestEntry[], error?: string): ProviderLoad {
  const manifest: ProviderManifest | undefined = tools ? { provider: name, sdk_version: "1", tools } : undefined;
  return {
    config: { name, binding: `PROVIDER_${name.toUpperCase()}`, trust },
    seq,
    manifest,
    ...(error ? { error } : {}),
  };
}

/** A validator table that knows exactly the given schemas, as the build step would. */
async function knows(...schemas: JsonSchema[]): Promise<(hash: string) => boolean> {
  const hashes = new Set(await Promise.all(schemas.map(schemaHash)));
  return (hash) => hashes.has(hash);
}

describe("buildCatalog", () => {
  it("groups offerings by tool name and version, in registration order", async () => {
    const catalog = await buildCatalog(
      [
        load("community", "community", 2, [tool("text.upper", "1.0.0")]),
        load("std", "system", 1, [tool("text.upper", "1.0.0"), tool("text.upper", "1.1.0"), tool("math.add", "2.0.0")]),
      ],
      await knows(IN, OUT),
    );
    expect(Object.keys(catalog.tools)).toEqual(["math.add", "text.upper"]);
    const upper = catalog.tools["text.upper"];
    expect(Object.keys(upper.versions).sort()).toEqual(["1.0.0", "1.1.0"]);
    expect(upper.versions["1.0.0"].map((o) => [o.provider, o.trust, o.seq])).toEqual([
      ["std", "system", 1],
      ["community", "community", 2],
    ]);
    expect(upper.versions["1.1.0"].map((o) => o.provider)).toEqual(["std"]);
    expect(catalog.problems).toEqual([]);
  });

  it("records each offering's binding, manifest entry and schema hashes", async () => {
    const entry = tool("text.upper", "1.0.0");
    const catalog = await buildCatalog([load("std", "system", 0, [entry])], await knows(IN, OUT));
    expect(catalog.tools["text.upper"].versions["1.0.0"][0]).toEqual({
      provider: "std",
      binding: "PROVIDER_STD",
      trust: "system",
      seq: 0,
      manifest: entry,
      input_hash: await schemaHash(IN),
      output_hash: await schemaHash(OUT),
    });
  });

  it("chooses the highest release as the active version, over a newer prerelease", async () => {
    const catalog = await buildCatalog(
      [load("std", "system", 0, [tool("t", "1.2.0"), tool("t", "1.10.0"), tool("t", "2.0.0-rc.1")])],
      await knows(IN, OUT),
    );
    expect(catalog.tools.t.active_version).toBe("1.10.0");
  });

  it("chooses the highest prerelease when a tool has no release", async () => {
    const catalog = await buildCatalog(
      [load("lab", "verified", 0, [tool("t", "0.1.0-alpha"), tool("t", "0.1.0-beta")])],
      await knows(IN, OUT),
    );
    expect(catalog.tools.t.active_version).toBe("0.1.0-beta");
  });

  it("picks the active version across providers", async () => {
    const catalog = await buildCatalog(
      [load("std", "system", 0, [tool("t", "1.0.0")]), load("lab", "verified", 1, [tool("t", "1.3.0")])],
      await knows(IN, OUT),
    );
    expect(catalog.tools.t.active_version).toBe("1.3.0");
  });

  it("leaves out an offering whose output schema has no prebuilt validator, and says why", async () => {
    const drifted: JsonSchema = { type: "object", properties: { text: { type: "string", maxLength: 5 } } };
    const catalog = await buildCatalog(
      [
        load("std", "system", 0, [
          tool("text.upper", "1.0.0"),
          tool("text.lower", "1.0.0", { output_schema: drifted }),
        ]),
      ],
      await knows(IN, OUT),
    );
    expect(Object.keys(catalog.tools)).toEqual(["text.upper"]);
    expect(catalog.problems).toHaveLength(1);
    expect(catalog.problems[0]).toContain("std: text.lower@1.0.0 left out");
    expect(catalog.providers[0].tools).toBe(1);
  });

  it("leaves out an offering whose input schema has no prebuilt validator", async () => {
    const catalog = await buildCatalog(
      [load("std", "system", 0, [tool("t", "1.0.0", { input_schema: { type: "string" } })])],
      await knows(IN, OUT),
    );
    expect(catalog.tools).toEqual({});
    expect(catalog.problems).toEqual([expect.stringContaining("std: t@1.0.0 left out")]);
  });

  it("marks a provider whose manifest could not be read unreachable, keeping its error", async () => {
    const catalog = await buildCatalog(
      [load("std", "system", 0, [tool("t", "1.0.0")]), load("lab", "verified", 1, undefined, "binding not found")],
      await knows(IN, OUT),
    );
    expect(catalog.providers).toEqual([
      { name: "std", binding: "PROVIDER_STD", trust: "system", seq: 0, reachable: true, tools: 1 },
      {
        name: "lab",
        binding: "PROVIDER_LAB",
        trust: "verified",
        seq: 1,
        reachable: false,
        tools: 0,
        error: "binding not found",
      },
    ]);
    expect(catalog.tools.t.versions["1.0.0"].map((o) => o.provider)).toEqual(["std"]);
  });

  it("reports a tool version declared twice by one provider and keeps the first", async () => {
    const first = tool("t", "1.0.0", { description: "first" });
    const second = tool("t", "1.0.0", { description: "second" });
    const catalog = await buildCatalog([load("std", "system", 0, [first, second])], await knows(IN, OUT));
    expect(catalog.tools.t.versions["1.0.0"].map((o) => o.manifest.description)).toEqual(["first"]);
    expect(catalog.problems).toEqual(["std: t@1.0.0 declared twice; the first is kept"]);
    expect(catalog.providers[0].tools).toBe(1);
  });

  it("keeps a manifest's tags, and leaves out an offering whose tags are malformed, saying why", async () => {
    const catalog = await buildCatalog(
      [
        load("std", "system", 0, [
          tool("math.add", "1.0.0", { tags: ["maths"] }),
          tool("t.upper", "1.0.0", { tags: ["Text"] }),
          tool("t.lower", "1.0.0", { tags: ["text", "text"] }),
          tool("t.many", "1.0.0", { tags: Array.from({ length: 17 }, (_, i) => `t${i}`) }),
          tool("t.shape", "1.0.0", { tags: "text" as never }),
        ]),
      ],
      await knows(IN, OUT),
    );
    expect(Object.keys(catalog.tools)).toEqual(["math.add"]);
    expect(catalog.tools["math.add"].versions["1.0.0"][0].manifest.tags).toEqual(["maths"]);
    expect(catalog.problems).toEqual([
      'std: t.upper@1.0.0 left out: tag "Text" does not match /^[a-z0-9](?:[a-z0-9._-]{0,30}[a-z0-9])?$/',
      "std: t.lower@1.0.0 left out: tag text is listed twice",
      "std: t.many@1.0.0 left out: tags must be a list of at most 16 tags",
      "std: t.shape@1.0.0 left out: tags must be a list of at most 16 tags",
    ]);
    expect(catalog.providers[0].tools).toBe(1);
  });

  it("does not call the same version from two providers a duplicate", async () => {
    const catalog = await buildCatalog(
      [load("std", "system", 0, [tool("t", "1.0.0")]), load("lab", "verified", 1, [tool("t", "1.0.0")])],
      await knows(IN, OUT),
    );
    expect(catalog.problems).toEqual([]);
    expect(catalog.tools.t.versions["1.0.0"]).toHaveLength(2);
  });

  it("builds an empty catalog from a provider with no tools", async () => {
    const catalog = await buildCatalog([load("std", "system", 0, [])], await knows(IN, OUT));
    expect(catalog).toEqual({
      providers: [{ name: "std", binding: "PROVIDER_STD", trust: "system", seq: 0, reachable: true, tools: 0 }],
      tools: {},
      problems: [],
    });
  });
});
