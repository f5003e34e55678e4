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
import { writeDevConfig } from "../../../scripts/dev-config.ts";

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
      "d1_databases",
      "assets",
    ] as const) {
      expect(dev[key]).toEqual(shipped[key]);
    }
  });
});
