/**
 * Dev-only providers stay dev-only: what `npm run deploy` ships names no lab
 * provider, and every Worker the shipped runtime binds is one `npm run deploy` ships; what
 * `npm start` and the tests run is exactly the shipped runtime plus the lab providers. The shipped
 * runtime's schema validators are the shipped providers' only; the dev config's are every provider's.
 * Read with wrangler's own config reader, as `wrangler deploy` and `wrangler dev` read them.
 * Needs the validators built (`npm run build:schemas`, which `npm test`'s pretest runs).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import type { ToolDefinition } from "../../../providers/sdk/define.ts";
import { SHIPPED } from "../../../scripts/deploy.ts";
import { auditShards, shardProblems } from "../../../scripts/audit-shards.ts";
import { mergeOverlay, OVERLAY_KEYS, writeDevConfig } from "../../../scripts/dev-config.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const read = (config: string) => unstable_readConfig({ config: join(root, config) });
const providersOf = (config: ReturnType<typeof read>) =>
  (config.vars as { PROVIDERS: { name: string; binding: string }[] }).PROVIDERS;
const servicesOf = (config: ReturnType<typeof read>) =>
  (config.services ?? []) as { binding: string; service: string }[];
const LAB = /lab/;

/** The schema hashes of every tool a provider folder defines. */
async function schemaHashes(provider: string): Promise<Set<string>> {
  const { schemaHash } = await import("../../../src/schema/schema-hash.ts");
  const mod = (await import(`../../../providers/${provider}/src/tools/index.ts`)) as Record<string, unknown>;
  const tools = Object.values(mod).filter(Array.isArray).flat() as ToolDefinition[];
  const hashes = new Set<string>();
  for (const t of tools) {
    hashes.add(await schemaHash(t.manifest.input_schema));
    hashes.add(await schemaHash(t.manifest.output_schema));
  }
  return hashes;
}

/** The hashes a generated validators module holds. */
async function built(file: string): Promise<Set<string>> {
  const mod = (await import(join(root, "src", "generated", file))) as { validators: Record<string, unknown> };
  return new Set(Object.keys(mod.validators));
}

describe("what ships", () => {
  const shipped = read("wrangler.jsonc");

  it("names no lab provider, in PROVIDERS or as a service binding", () => {
    expect(providersOf(shipped).map((p) => p.name)).toEqual(["std", "community"]);
    expect(
      servicesOf(shipped)
        .map((s) => s.service)
        .filter((s) => LAB.test(s)),
    ).toEqual([]);
    expect(SHIPPED.filter((c) => LAB.test(c))).toEqual([]);
  });

  it("bundles the shipped providers' validators and no lab provider's (package.json's #validators)", async () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { imports: Record<string, string> };
    expect(pkg.imports["#validators"]).toBe("./src/generated/validators.js");
    const shippedHashes = new Set([...(await schemaHashes("std")), ...(await schemaHashes("community"))]);
    expect([...(await built("validators.js"))].sort()).toEqual([...shippedHashes].sort());
    const labOnly = [...(await schemaHashes("lab"))].filter((h) => !shippedHashes.has(h));
    expect(labOnly.length).toBeGreaterThan(0);
    const held = await built("validators.js");
    expect(labOnly.filter((h) => held.has(h))).toEqual([]);
  });

  it("deploys every Worker the runtime binds, before the runtime", () => {
    const deployed = SHIPPED.map((c) => read(c).name);
    for (const service of servicesOf(shipped)) expect(deployed.slice(0, -1)).toContain(service.service);
    expect(deployed.at(-1)).toBe(shipped.name);
    for (const p of providersOf(shipped)) expect(servicesOf(shipped).map((s) => s.binding)).toContain(p.binding);
  });
});

describe("what npm start and the tests run", () => {
  const shipped = read("wrangler.jsonc");
  const dev = unstable_readConfig({ config: writeDevConfig(root) });

  it("is the shipped runtime plus the three lab providers, after the shipped ones, and the example upstream MCP server", () => {
    expect(providersOf(dev).map((p) => p.name)).toEqual(["std", "community", "lab", "lab-twin", "lab-broken"]);
    expect(servicesOf(dev).map((s) => s.service)).toEqual([
      ...servicesOf(shipped).map((s) => s.service),
      "tool-provider-lab",
      "tool-provider-lab-twin",
      "tool-provider-lab-broken",
      "mcp-upstream-example",
    ]);
  });

  it("bundles every provider's validators, the lab ones too (the overlay's alias)", async () => {
    expect(dev.alias).toEqual({ "#validators": "./src/generated/validators-dev.js" });
    const held = await built("validators-dev.js");
    for (const provider of ["std", "community", "lab", "lab-twin", "lab-broken"])
      for (const hash of await schemaHashes(provider))
        expect({ provider, hash, held: held.has(hash) }).toEqual({ provider, hash, held: true });
  });

  it("leaves out the declared secrets, so that wrangler dev reads all of .dev.vars", () => {
    expect(shipped.secrets?.required).toContain("BOOTSTRAP_TOKEN");
    expect(dev.secrets).toBeUndefined();
  });

  it("runs the sharded audit store: the shipped AUDIT_DB and the overlay's AUDIT_DB_1, by the shards' convention", () => {
    type D1 = { binding: string; database_name?: string; migrations_dir?: string };
    const d1 = (c: typeof dev) =>
      ((c.d1_databases ?? []) as D1[]).map((d) => ({
        binding: d.binding,
        name: d.database_name,
        dir: d.migrations_dir,
      }));
    expect(auditShards(d1(shipped)).map((d) => d.binding)).toEqual(["AUDIT_DB"]);
    expect(d1(dev)).toEqual([
      ...d1(shipped),
      { binding: "AUDIT_DB_1", name: "tool-runtime-audit-1", dir: "migrations" },
    ]);
    expect(shardProblems(d1(dev))).toEqual([]);
  });

  it("changes nothing else", () => {
    const { PROVIDERS: _a, ...devVars } = dev.vars as Record<string, unknown>;
    const { PROVIDERS: _b, ...shippedVars } = shipped.vars as Record<string, unknown>;
    expect(devVars).toEqual(shippedVars);
    for (const key of [
      "name",
      "main",
      "compatibility_date",
      "compatibility_flags",
      "durable_objects",
      "migrations",
      "kv_namespaces",
      "queues",
      "r2_buckets",
      "assets",
    ] as const) {
      expect(dev[key]).toEqual(shipped[key]);
    }
  });
});

describe("the dev overlay's merge", () => {
  const shipped = {
    name: "rt",
    services: [{ binding: "A", service: "a" }],
    d1_databases: [{ binding: "AUDIT_DB", database_name: "audit" }],
    vars: { PROVIDERS: [{ name: "std" }], OTHER: "1" },
    secrets: { required: ["X"] },
  };

  it("appends services, vars.PROVIDERS and d1_databases after the shipped ones, and adds alias", () => {
    const merged = mergeOverlay(shipped, {
      services: [{ binding: "B", service: "b" }],
      d1_databases: [{ binding: "AUDIT_DB_1", database_name: "audit-1" }],
      vars: { PROVIDERS: [{ name: "lab" }] },
      alias: { "#v": "./v.js" },
    });
    expect(merged).toEqual({
      name: "rt",
      services: [
        { binding: "A", service: "a" },
        { binding: "B", service: "b" },
      ],
      d1_databases: [
        { binding: "AUDIT_DB", database_name: "audit" },
        { binding: "AUDIT_DB_1", database_name: "audit-1" },
      ],
      vars: { PROVIDERS: [{ name: "std" }, { name: "lab" }], OTHER: "1" },
      alias: { "#v": "./v.js" },
    });
    expect(mergeOverlay(shipped, {}).d1_databases).toEqual(shipped.d1_databases);
  });

  it("allows only the keys it merges, and refuses any other, at the top or in vars", () => {
    expect([...OVERLAY_KEYS].sort()).toEqual(["alias", "d1_databases", "services", "vars"]);
    expect(() => mergeOverlay(shipped, { kv_namespaces: [] })).toThrow(
      /may add services, vars.PROVIDERS, alias and d1_databases only, not kv_namespaces/,
    );
    expect(() => mergeOverlay(shipped, { vars: { OTHER: "2" } })).toThrow(/not vars.OTHER/);
  });
});
