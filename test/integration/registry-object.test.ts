import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { RegistryObject } from "../../durable-objects/registry-object.ts";
import { healthKey } from "../../src/registry/catalog.ts";
import { breakerView } from "../../src/registry/provider-health.ts";

/** A registry of its own per test (a fresh name), with a clock the test moves. */
async function registry() {
  const stub = env.REGISTRY.get(env.REGISTRY.idFromName(`test-${crypto.randomUUID()}`));
  let now = Date.now();
  await runInDurableObject(stub, (instance: RegistryObject) => {
    instance.clock = () => now;
  });
  const inside = <T>(fn: (r: RegistryObject) => Promise<T>) => runInDurableObject(stub, fn);
  return { inside, advance: (ms: number) => (now += ms), now: () => now };
}

const sample = (ok: boolean, at: number) => ({ provider: "lab-twin", tool: "lab.route", at, latency_ms: 5, ok });

describe("RegistryObject", () => {
  it("builds the catalog from every provider's manifest, in registration order", async () => {
    const { inside } = await registry();
    const snap = await inside((r) => r.snapshot());
    expect(snap.providers.map((p) => [p.name, p.trust, p.reachable])).toEqual([
      ["std", "system", true],
      ["community", "community", true],
      ["lab", "community", true],
      ["lab-twin", "verified", true],
      ["lab-broken", "system", true],
    ]);
    expect(snap.tools["lab.route"].versions["1.0.0"].map((o) => o.provider)).toEqual(["lab", "lab-twin", "lab-broken"]);
    expect(snap.problems).toEqual([]);
  });

  it("opens the breaker at N failures in the window, half-opens after the cooldown, closes on a good trial", async () => {
    const { inside, advance, now } = await registry();
    await inside((r) => r.snapshot());
    const state = async () => {
      const snap = await inside((r) => r.snapshot());
      return breakerView(snap.health[healthKey("lab-twin", "lab.route")].breaker, now());
    };
    // lab.route declares 3 failures in 30 s, 3 s cooldown.
    await inside((r) => r.report([sample(false, now()), sample(false, now())]));
    expect(await state()).toBe("closed");
    await inside((r) => r.report([sample(false, now())]));
    expect(await state()).toBe("open");
    expect(await inside((r) => r.acquireTrial("lab-twin", "lab.route"))).toBe(false);

    advance(3_000);
    expect(await state()).toBe("half_open");
    expect(await inside((r) => r.acquireTrial("lab-twin", "lab.route"))).toBe(true);
    expect(await inside((r) => r.acquireTrial("lab-twin", "lab.route"))).toBe(false); // one trial only
    await inside((r) => r.report([sample(true, now())]));
    expect(await state()).toBe("closed");
  });

  it("re-opens the breaker when the trial fails", async () => {
    const { inside, advance, now } = await registry();
    await inside((r) => r.snapshot());
    await inside((r) => r.report([sample(false, now()), sample(false, now()), sample(false, now())]));
    advance(3_000);
    expect(await inside((r) => r.acquireTrial("lab-twin", "lab.route"))).toBe(true);
    await inside((r) => r.report([sample(false, now())]));
    const snap = await inside((r) => r.snapshot());
    expect(breakerView(snap.health[healthKey("lab-twin", "lab.route")].breaker, now())).toBe("open");
  });

  it("does not count failures older than the window", async () => {
    const { inside, advance, now } = await registry();
    await inside((r) => r.snapshot());
    await inside((r) => r.report([sample(false, now()), sample(false, now())]));
    advance(31_000);
    await inside((r) => r.report([sample(false, now())]));
    const snap = await inside((r) => r.snapshot());
    expect(breakerView(snap.health[healthKey("lab-twin", "lab.route")].breaker, now())).toBe("closed");
  });

  it("keeps a dead provider's offerings, marked dead, until its manifest answers after the probe delay", async () => {
    const { inside, advance } = await registry();
    await inside((r) => r.snapshot());
    await inside((r) => r.report([], [{ provider: "lab-broken", at: Date.now(), reason: "binding threw" }]));
    let snap = await inside((r) => r.snapshot());
    expect(snap.providers.find((p) => p.name === "lab-broken")!.dead).toMatchObject({ reason: "binding threw" });
    expect(snap.tools["lab.route"].versions["1.0.0"].some((o) => o.provider === "lab-broken")).toBe(true);

    advance(31_000);
    snap = await inside((r) => r.snapshot());
    expect(snap.providers.find((p) => p.name === "lab-broken")!.dead).toBeUndefined();
  });

  it("computes p50 and error rate from reported samples", async () => {
    const { inside, now } = await registry();
    await inside((r) => r.snapshot());
    const at = now();
    await inside((r) =>
      r.report([10, 20, 30].map((latency_ms) => ({ provider: "std", tool: "math.evaluate", at, latency_ms, ok: true })).concat([{ provider: "std", tool: "math.evaluate", at, latency_ms: 99, ok: false }])),
    );
    const snap = await inside((r) => r.snapshot());
    expect(snap.health[healthKey("std", "math.evaluate")]).toMatchObject({ p50_ms: 20, error_rate: 0.25, samples: 4 });
  });
});
