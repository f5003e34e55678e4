/**
 * What ships: every provider declares a CPU limit, and no configuration that ships (or that
 * `npm start` runs) lets http.request past its address rules. Read with wrangler's own config
 * reader, so the test sees exactly what `wrangler deploy` and `wrangler dev` would.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_getVarsForDev, unstable_readConfig } from "wrangler";
import { egressPolicyFrom } from "../../../../providers/std/src/tools/egress-policy.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const providerConfigs = readdirSync(join(root, "providers"))
  .map((name) => join(root, "providers", name, "wrangler.jsonc"))
  .filter((path) => existsSync(path));
const allConfigs = [
  join(root, "wrangler.jsonc"),
  ...providerConfigs,
  join(root, "verifiers/intent/wrangler.jsonc"),
  join(root, "examples/caller/wrangler.jsonc"),
];

const read = (config: string) => unstable_readConfig({ config });

describe("shipped provider configuration", () => {
  it("finds the five example providers", () => {
    expect(providerConfigs.map((p) => read(p).name).sort()).toEqual([
      "tool-provider-community",
      "tool-provider-lab",
      "tool-provider-lab-broken",
      "tool-provider-lab-twin",
      "tool-provider-std",
    ]);
  });

  it.each(providerConfigs.map((p) => [p.slice(root.length + 1), p]))(
    "%s declares a CPU limit within the platform's 5 minutes",
    (_name, path) => {
      const cpu = read(path).limits?.cpu_ms;
      expect(cpu).toBeGreaterThan(0);
      expect(cpu).toBeLessThanOrEqual(300_000);
    },
  );

  it.each(allConfigs.map((p) => [p.slice(root.length + 1), p]))(
    "%s allows no egress past the address rules",
    (_name, path) => {
      const vars = read(path).vars as Record<string, unknown>;
      expect(vars.EGRESS_ALLOW ?? "").toBe("");
      expect(egressPolicyFrom(vars).allow.size).toBe(0);
    },
  );

  it("gives the std provider ports 80 and 443 only", () => {
    const vars = read(join(root, "providers/std/wrangler.jsonc")).vars as Record<string, unknown>;
    expect([...egressPolicyFrom(vars).ports].sort((a, b) => a - b)).toEqual([80, 443]);
  });

  it("gives the std provider no allow-list under wrangler dev either (.dev.vars and .env included)", () => {
    const config = join(root, "providers/std/wrangler.jsonc");
    const devVars = unstable_getVarsForDev(config, undefined, read(config).vars, undefined, true) as Record<
      string,
      { value?: unknown } | unknown
    >;
    const allow = devVars.EGRESS_ALLOW;
    const value = typeof allow === "object" && allow !== null && "value" in allow ? allow.value : allow;
    expect(value ?? "").toBe("");
  });

  it("keeps the allow-list out of the local development secrets", () => {
    expect(readFileSync(join(root, ".dev.vars"), "utf8")).not.toMatch(/^EGRESS_ALLOW=/m);
  });
});
