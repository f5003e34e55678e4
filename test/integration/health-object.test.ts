import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { HealthObject } from "../../durable-objects/health-object.ts";
import type { RegistryObject } from "../../durable-objects/registry-object.ts";
import { healthKey } from "../../src/registry/catalog.ts";
import { healthStub, registryStub } from "../../src/object-stubs.ts";
import { breakerView } from "../../src/registry/provider-health.ts";

/** A registry of its own and the health shard of one of its providers (lab-twin: lab.route opens at 3 failures, 3 s cooldown). */
async function setup() {
  const name = `test-${crypto.randomUUID()}`;
  const registry = registryStub(env, name);
  const shard = healthStub(env, "lab-twin", name);
  const snapshot = () => runInDurableObject(registry, (r: RegistryObject) => r.snapshot());
  await snapshot();
  return { registry, shard, snapshot };
}

/** Polls (bounded) until `ok` holds; the shard's push runs on its own alarm. */
async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, withinMs = 10_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const pendingPush = (shard: DurableObjectStub<HealthObject>) =>
  runInDurableObject(shard, (_h: HealthObject, state) => state.storage.getAlarm());
const isOpen = (s: { health: Record<string, { breaker: Parameters<typeof breakerView>[0] }> }) => {
  const h = s.health[healthKey("lab-twin", "lab.route")];
  return h !== undefined && breakerView(h.breaker, Date.now()) === "open";
};

const POLICY = { failures: 3, window_ms: 30_000, cooldown_ms: 3_000 };
const report = (ok: boolean[], latency_ms = 5) => ({
  provider: "lab-twin",
  samples: ok.map((o) => ({ provider: "lab-twin", tool: "lab.route", at: Date.now(), latency_ms, ok: o })),
  unreachable: [],
  policies: { "lab.route": POLICY },
});

describe("HealthObject (a provider's health shard)", () => {
  it("answers every report with the provider's view, breaker included", async () => {
    const { shard } = await setup();
    const view = await shard.report(report([false, false, false]));
    expect(view.provider).toBe("lab-twin");
    expect(breakerView(view.tools["lab.route"].breaker, Date.now())).toBe("open");
    expect(view.tools["lab.route"]).toMatchObject({ error_rate: 1, samples: 3, policy: POLICY });
  });

  it("tells its own registry of a breaker opening, and no other registry", async () => {
    const { registry, shard, snapshot } = await setup();
    const other = await setup();
    await shard.report(report([false, false, false]));
    // Sent at once by the shard's alarm; no isolate reads or reports anything to the registry.
    const snap = await eventually(snapshot, isOpen);
    expect(isOpen(snap)).toBe(true);
    expect(snap.health_seq?.["lab-twin"]).toEqual(expect.any(Number));
    expect((await other.snapshot()).health[healthKey("lab-twin", "lab.route")]).toBeUndefined();
    expect(
      await runInDurableObject(registry, (r: RegistryObject) => r.snapshot().then((s) => s.providers.length)),
    ).toBeGreaterThan(0);
  });

  it("moves the registry's version when a breaker moves, not for every batch of like successes", async () => {
    const { shard, snapshot } = await setup();
    await shard.report(report([true, true], 20));
    const known = await eventually(snapshot, (s) => s.health[healthKey("lab-twin", "lab.route")] !== undefined);
    expect(await pendingPush(shard)).toBeNull();
    // The same latency again and again: the quantized view does not change, so nothing is due.
    for (let i = 0; i < 5; i++) await shard.report(report([true], 20));
    expect(await pendingPush(shard)).toBeNull();
    expect((await snapshot()).version).toBe(known.version);
    // Three failures open the breaker: sent at once, and the version moves.
    await shard.report(report([false, false, false]));
    const after = await eventually(snapshot, isOpen);
    expect(after.version).toBeGreaterThan(known.version);
  });

  it("grants one trial after the cooldown and answers the refused with the view that says it is taken", async () => {
    const { shard } = await setup();
    let now = Date.now();
    await runInDurableObject(shard, (h: HealthObject) => {
      h.clock = () => now;
    });
    await shard.report(report([false, false, false]));
    now += 3_000;
    expect((await shard.acquireTrial("lab.route")).granted).toBe(true);
    const refused = await shard.acquireTrial("lab.route");
    expect(refused.granted).toBe(false);
    expect(refused.view.tools["lab.route"].breaker.trial_at).toBe(now);
    // Handed back unused: the next caller takes it.
    await shard.returnTrial("lab.route");
    expect((await shard.acquireTrial("lab.route")).granted).toBe(true);
  });

  it("forgets its verdict of dead when the registry revives the provider", async () => {
    const { shard } = await setup();
    const dead = {
      provider: "lab-twin",
      samples: [],
      unreachable: [1, 2, 3].map(() => ({ provider: "lab-twin", at: Date.now(), reason: "Worker not found" })),
    };
    const view = await shard.report(dead);
    expect(view.dead).toMatchObject({ reason: "Worker not found" });
    const revived = await shard.revive();
    expect(revived.dead).toBeUndefined();
    expect(revived.seq).toBeGreaterThan(view.seq);
  });
});
