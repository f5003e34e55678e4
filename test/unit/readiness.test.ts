/**
 * Quiet health (issue 14): /readyz's check is made at most once per READY_CACHE_MS per isolate,
 * however many probes arrive, and what it found stays out of the public answer.
 */
import { describe, expect, it } from "vitest";
import { health, readiness, READY_CACHE_MS } from "../../src/routes/health.ts";

/** An env whose registry and one provider count how often they are asked. */
function countingEnv() {
  const asked = { snapshot: 0, manifest: 0 };
  const env = {
    PROVIDERS: [{ name: "std", binding: "PROVIDER_STD", trust: "system" }],
    PROVIDER_STD: { invoke: () => {}, manifest: async () => (asked.manifest++, { provider: "std", tools: [] }) },
    REGISTRY: { idFromName: () => "id", get: () => ({ snapshot: async () => (asked.snapshot++, { version: 7, tools: { "math.evaluate": {} }, problems: [] }) }) },
  } as unknown as Env;
  return { env, asked };
}

describe("readiness", () => {
  it("checks once for any number of probes within the interval, then again after it", async () => {
    const { env, asked } = countingEnv();
    const start = 1_000_000_000;
    const reports = await Promise.all(Array.from({ length: 50 }, (_, i) => readiness(env, start + (i % 10))));
    expect(asked).toEqual({ snapshot: 1, manifest: 1 });
    expect(reports[0]).toMatchObject({ status: "ready", registry_version: 7, tools: 1, providers: [{ name: "std", reachable: true }], problems: [] });
    await readiness(env, start + READY_CACHE_MS);
    expect(asked).toEqual({ snapshot: 2, manifest: 2 });
  });

  it("answers the public probe with the status only", async () => {
    const { env } = countingEnv();
    const res = await health.request("/readyz", {}, env);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });
});
