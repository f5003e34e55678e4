/**
 * Dev-only providers stay dev-only: what `npm run deploy` ships names no lab
 * provider, and every Worker the shipped runtime binds is one `npm run deploy` ships; what
 * `npm start` and the tests run is exactly the shipped runtime plus the lab providers.
 * Read with wrangler's own config reader, as `wrangler deploy` and `wrangler dev` read them.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { SHIPPED } from "../../../scripts/deploy.ts";
import { writeDevConfig } from "../../../scripts/dev-config.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const read = (config: string) => unstable_readConfig({ config: join(root, config) });
const providersOf = (config: ReturnType<typeof read>) =>
  (config.vars as { PROVIDERS: { name: string; binding: string }[] }).PROVIDERS;
const servicesOf = (config: ReturnType<typeof read>) =>
  (config.services ?? []) as { binding: string; service: string }[];
const LAB = /lab/;

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
