import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  DEAD_AFTER_TRANSPORT_FAILURES,
  LIVENESS_PROBE_MS,
  PROBE_EVERY_MS,
  type RegistryObject,
} from "../../durable-objects/registry-object.ts";
import { RegistryStore } from "../../durable-objects/registry-store.ts";
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
  return { inside, stub, advance: (ms: number) => (now += ms), now: () => now };
}

const sample = (ok: boolean, at: number) => ({ provider: "lab-twin", tool: "lab.route", at, latency_ms: 5, ok });

describe("RegistryObject", () => {
  it("gives a new registry object versions above every version an earlier one gave out", async () => {
    const earlier = await registry();
    const first = await earlier.stub.refresh();
    const changed = await earlier.stub.refresh();
    expect(changed.version).toBeGreaterThanOrEqual(first.version);
    // A registry whose storage starts empty, as after a reset: its copies must outrank the old ones at every edge.
    const later = await registry();
    expect((await later.stub.refresh()).version).toBeGreaterThan(changed.version);
  });

  it("answers an upstream's registration with its listing even while another reload is under way", async () => {
    const { inside } = await registry();
    await inside((r) => r.snapshot());
    const name = `race-${crypto.randomUUID().slice(0, 8)}`;
    // A reload that read the store before the registration must not be the one it waits for.
    const [, registered] = await inside((r) =>
      Promise.all([
        r.refresh(),
        r.registerUpstream({
          name,
          binding: "UPSTREAM_EXAMPLE",
          trust: "community",
          prefix: `${name}.`,
          tools: ["echo"],
          defaults: { latency_class: "fast", effects: "read", idempotent: true },
        }),
      ]),
    );
    expect(registered).toMatchObject({ ok: true, value: { name, status: { error: null, served: [`${name}.echo`] } } });
    expect((await inside((r) => r.snapshot())).tools[`${name}.echo`]).toBeDefined();
  });

  it("builds the catalog from every provider's manifest, in registration order", async () => {
    const { inside } = await registry();
    const snap = await inside((r) => r.snapshot());
    expect(snap.providers.map((p) => [p.name, p.trust, p.reachable])).toEqual([
      ["std", "system", true],
      ["community", "community", true],
      ["lab", "community", true],
      ["lab-twin", "verified", true],
      ["lab-broken", "system", true],
      // The example upstream MCP server that development registers (.dev.vars UPSTREAMS), over its binding.
      ["example", "community", true],
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

  it("calls a provider dead only after DEAD_AFTER_TRANSPORT_FAILURES unreachable calls in a row; a good call forgives", async () => {
    const { inside } = await registry();
    await inside((r) => r.snapshot());
    const unreachable = [{ provider: "lab-twin", at: Date.now(), reason: "Worker not found" }];
    const ok = [{ provider: "lab-twin", tool: "lab.route", at: Date.now(), latency_ms: 5, ok: true }];
    await inside((r) => r.report([], unreachable));
    await inside((r) => r.report([], unreachable));
    await inside((r) => r.report(ok, []));
    await inside((r) => r.report([], unreachable));
    expect((await inside((r) => r.snapshot())).providers.find((p) => p.name === "lab-twin")!.dead).toBeUndefined();
    for (let i = 1; i < DEAD_AFTER_TRANSPORT_FAILURES; i++) await inside((r) => r.report([], unreachable));
    expect((await inside((r) => r.snapshot())).providers.find((p) => p.name === "lab-twin")!.dead).toMatchObject({
      reason: "Worker not found",
    });
  });

  it("keeps a dead provider's offerings, marked dead, until its manifest answers after the probe delay", async () => {
    const { inside, advance, now } = await registry();
    await inside((r) => r.snapshot());
    // On the registry's clock, as below: the machine's may run ahead of it by a slow snapshot.
    for (let i = 0; i < DEAD_AFTER_TRANSPORT_FAILURES; i++)
      await inside((r) => r.report([], [{ provider: "lab-broken", at: now(), reason: "binding threw" }]));
    let snap = await inside((r) => r.snapshot());
    expect(snap.providers.find((p) => p.name === "lab-broken")!.dead).toMatchObject({ reason: "binding threw" });
    expect(snap.tools["lab.route"].versions["1.0.0"].some((o) => o.provider === "lab-broken")).toBe(true);

    advance(31_000);
    snap = await inside((r) => r.snapshot());
    expect(snap.providers.find((p) => p.name === "lab-broken")!.dead).toBeUndefined();
  });

  it("probes the dead again by its own alarm and brings them back without an operator (docs/contract.md#liveness)", async () => {
    const { inside, advance, now, stub } = await registry();
    await inside((r) => r.snapshot());
    // Died at the registry's own clock, which the test moves: by the machine's clock the first
    // snapshot (cold manifests on a busy machine) may take longer than the second the test
    // advances past LIVENESS_PROBE_MS.
    for (let i = 0; i < DEAD_AFTER_TRANSPORT_FAILURES; i++)
      await inside((r) => r.report([], [{ provider: "lab-broken", at: now(), reason: "binding threw" }]));
    // A probe is scheduled while anyone is dead.
    expect(await runInDurableObject(stub, (_r, state) => state.storage.getAlarm())).not.toBeNull();
    advance(LIVENESS_PROBE_MS + 1_000);
    // No call, no snapshot read, no operator: the alarm alone re-reads the manifests.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const dead = await inside(async (r) => (await r.snapshot()).providers.find((p) => p.name === "lab-broken")!.dead);
    expect(dead).toBeUndefined();
  });

  it("does not revive a dead provider before LIVENESS_PROBE_MS, however often its probe finds it answering", async () => {
    const { inside, advance, now, stub } = await registry();
    await inside((r) => r.snapshot());
    const diedAt = now();
    for (let i = 0; i < DEAD_AFTER_TRANSPORT_FAILURES; i++)
      await inside((r) => r.report([], [{ provider: "lab-broken", at: diedAt, reason: "binding threw" }]));
    const dead = async () => (await inside((r) => r.snapshot())).providers.find((p) => p.name === "lab-broken")!.dead;
    // The probe alarm comes every PROBE_EVERY_MS and finds lab-broken's manifest answering every time.
    expect(PROBE_EVERY_MS).toBeLessThan(LIVENESS_PROBE_MS);
    for (const since of [PROBE_EVERY_MS, 2 * PROBE_EVERY_MS, LIVENESS_PROBE_MS - 1]) {
      advance(diedAt + since - now());
      expect(await runDurableObjectAlarm(stub)).toBe(true);
      expect({ since, dead: await dead() }).toEqual({
        since,
        dead: expect.objectContaining({ reason: "binding threw" }),
      });
    }
    // LIVENESS_PROBE_MS after it died, the next probe brings it back.
    advance(1);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await dead()).toBeUndefined();
  });

  it("computes p50 and error rate from reported samples", async () => {
    const { inside, now } = await registry();
    await inside((r) => r.snapshot());
    const at = now();
    await inside((r) =>
      r.report(
        [10, 20, 30]
          .map((latency_ms) => ({ provider: "std", tool: "math.evaluate", at, latency_ms, ok: true }))
          .concat([{ provider: "std", tool: "math.evaluate", at, latency_ms: 99, ok: false }]),
      ),
    );
    const snap = await inside((r) => r.snapshot());
    expect(snap.health[healthKey("std", "math.evaluate")]).toMatchObject({ p50_ms: 20, error_rate: 0.25, samples: 4 });
  });

  it("reads a bundle stored before discovery and tags as listing, selecting by no tag", async () => {
    const { stub } = await registry();
    const old = {
      name: "old",
      description: null,
      tools: ["math.evaluate"],
      prefixes: [],
      channels: [],
      updated_at: "x",
    };
    const read = await runInDurableObject(stub, (_r: RegistryObject, state) => {
      const store = new RegistryStore(state.storage.sql);
      state.storage.sql.exec("INSERT INTO bundles (name, body) VALUES ('old', ?)", JSON.stringify(old));
      state.storage.sql.exec(
        "INSERT INTO tenant_bundles (tenant, name, body) VALUES ('t', 'old', ?)",
        JSON.stringify(old),
      );
      return [
        store.bundles().get("old"),
        store.tenantBundles("t").get("old"),
        store.allTenantBundles().get("t")?.get("old"),
      ];
    });
    for (const bundle of read) expect(bundle).toEqual({ ...old, discovery: "list", tags: [] });
  });
});
