/**
 * The edge's side of the registry, per isolate (module state): the snapshot tiers and the
 * health reporter. Each "isolate" here is a fresh copy of the modules (vi.resetModules), as in
 * the simulation; the data center's Cache API is a small stand-in honouring max-age, and the
 * registry and health shards are stubs that count what they receive.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { RegistrySnapshot } from "../../../src/registry/catalog.ts";
import type { HealthReport } from "../../../src/registry/health-shard.ts";
import type { ProviderHealthView } from "../../../src/registry/health-view.ts";
import { CLOSED, DEFAULT_BREAKER } from "../../../src/registry/provider-health.ts";
import { SnapshotRelay } from "../../../src/registry/snapshot-relay.ts";

type Reporter = typeof import("../../../src/registry/health-reporter.ts");
type Cache = typeof import("../../../src/registry/snapshot-cache.ts");

const TTL = 5_000;
const POLICY = { failures: 3, window_ms: 30_000, cooldown_ms: 3_000 };

function snapshot(version: number): RegistrySnapshot {
  const offering = {
    provider: "p",
    binding: "P",
    trust: "system" as const,
    seq: 1,
    manifest: { name: "t", version: "1.0.0", breaker: POLICY } as never,
    input_hash: "",
    output_hash: "",
  };
  return {
    version,
    built_at: 0,
    providers: [{ name: "p", binding: "P", trust: "system", seq: 1, reachable: true, tools: 1 }],
    tools: { t: { name: "t", active_version: "1.0.0", versions: { "1.0.0": [offering] } } },
    problems: [],
    health: {},
    health_seq: {},
    deprecations: {},
  };
}

/** The data center's cache: entries expire by their max-age, as the Cache API's do. */
function dataCenter() {
  const entries = new Map<string, { body: string; expires: number }>();
  const cache = {
    async match(url: string) {
      const e = entries.get(url);
      return e && e.expires > Date.now() ? new Response(e.body) : undefined;
    },
    async put(url: string, res: Response) {
      const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get("cache-control") ?? "")?.[1] ?? 0);
      entries.set(url, { body: await res.text(), expires: Date.now() + maxAge * 1000 });
    },
  };
  return { open: async () => cache };
}

/** The shared things, counted; a shard's answers can be held back to see who waits for them. */
function world() {
  let version = 1;
  let seq = 10;
  const reads = { registry: 0 };
  const reports: HealthReport[] = [];
  let hold: Promise<void> | undefined;
  let holdSnapshot: Promise<void> | undefined;
  let failures = 0;
  // A shard in miniature: the breaker opens at the third failure it hears of.
  const answer = (r: HealthReport): ProviderHealthView => {
    failures += r.samples.filter((s) => !s.ok).length;
    const breaker =
      failures >= 3 ? { state: "open" as const, reset_at: 0, opened_at: 0, until: Date.now() + 3_000 } : CLOSED;
    return {
      provider: r.provider,
      seq: ++seq,
      tools: { t: { p50_ms: 10, error_rate: 1, samples: failures, breaker, policy: r.policies?.t ?? DEFAULT_BREAKER } },
    };
  };
  const registry = {
    snapshot: async () => {
      reads.registry++;
      await holdSnapshot;
      return snapshot(version);
    },
  };
  // The data centers' relays: the real logic, one per name, as the objects are.
  const relays = new Map<string, SnapshotRelay>();
  const relay = (name: string) => {
    if (relayDown) throw new Error("relay unreachable");
    return relays.get(name) ?? relays.set(name, new SnapshotRelay(registry.snapshot, () => TTL)).get(name)!;
  };
  let relayDown = false;
  const env = {
    PROVIDERS: [{ name: "p", binding: "P", trust: "system" }],
    REGISTRY_SNAPSHOT_TTL_MS: TTL,
    REGISTRY: { idFromName: (n: string) => n, get: () => registry },
    SNAPSHOT_RELAY: {
      idFromName: (n: string) => n,
      get: (name: string) => ({
        snapshot: async () => relay(name).snapshot(),
        offer: async (s: RegistrySnapshot) => relay(name).offer(s),
      }),
    },
    HEALTH: {
      idFromName: (n: string) => n,
      get: () => ({
        report: async (r: HealthReport) => {
          reports.push(r);
          await hold;
          return answer(r);
        },
      }),
    },
  } as unknown as Env;
  return {
    env,
    reads,
    reports,
    bump: () => version++,
    /** The relays answer nothing but errors from now on. */
    breakRelays: () => (relayDown = true),
    /** The registry's snapshot answers wait until the returned function is called (a slow round trip). */
    holdSnapshots: () => {
      let release!: () => void;
      holdSnapshot = new Promise((r) => (release = r));
      return () => {
        holdSnapshot = undefined;
        release();
      };
    },
    holdAnswers: () => {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

/** Waits for what was handed to waitUntil, including what those hand on while they run. */
async function drain(list: Promise<unknown>[]): Promise<void> {
  while (list.length > 0) await Promise.all(list.splice(0));
}

/** A fresh isolate: its own copies of the edge's modules (one at a time: imports started together share one copy). */
async function isolates(n: number): Promise<{ cache: Cache; reporter: Reporter }[]> {
  const all = [];
  for (let i = 0; i < n; i++) all.push(await isolate());
  return all;
}

async function isolate(): Promise<{ cache: Cache; reporter: Reporter }> {
  vi.resetModules();
  return {
    cache: await import("../../../src/registry/snapshot-cache.ts"),
    reporter: await import("../../../src/registry/health-reporter.ts"),
  };
}

const sample = (ok: boolean) => ({ provider: "p", tool: "t", at: Date.now(), latency_ms: 5, ok });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.stubGlobal("caches", dataCenter());
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("the snapshot's tiers: isolate, data center, registry", () => {
  it("reads the registry once per TTL for a data center, however many isolates run there", async () => {
    const w = world();
    const edges = await isolates(20);
    for (const i of edges) await i.cache.getSnapshot(w.env);
    expect(w.reads.registry).toBe(1);
    for (let period = 1; period <= 3; period++) {
      vi.advanceTimersByTime(TTL + 1);
      const background: Promise<unknown>[] = [];
      for (const i of edges) {
        await i.cache.getSnapshot(w.env, (p) => background.push(p));
        await drain(background);
      }
    }
    expect(w.reads.registry).toBe(4);
  });

  it("has one isolate refill the data center's entry while the others refreshing during its registry round trip keep the entry", async () => {
    const w = world();
    const edges = await isolates(20);
    for (const i of edges) await i.cache.getSnapshot(w.env);
    expect(w.reads.registry).toBe(1);
    w.bump();
    vi.advanceTimersByTime(TTL + 1);
    const release = w.holdSnapshots();
    const background: Promise<unknown>[] = [];
    // The first refresh claims the refill and waits on the registry; the rest come one by one
    // while it waits, each finishing its own refresh (not at the same instant: a claim is one
    // cache write, so only refreshes within that write's latency of each other can both miss).
    await edges[0].cache.getSnapshot(w.env, (p) => background.push(p));
    await vi.waitFor(() => expect(w.reads.registry).toBe(2));
    for (const i of edges.slice(1)) await refreshed(i);
    expect(w.reads.registry).toBe(2);
    release();
    await drain(background);
    expect((await edges[0].cache.getSnapshot(w.env)).version).toBe(2);
    // The next TTL, the others have the new version: one more refill, by whoever came first.
    vi.advanceTimersByTime(TTL + 1);
    for (const i of edges.slice(1)) expect((await refreshed(i)).version).toBe(2);
    expect(w.reads.registry).toBe(3);

    /** This isolate's copy after its refresh and everything the refresh left to the request (the cache write) are done. */
    async function refreshed(i: { cache: Cache }): Promise<RegistrySnapshot> {
      const mine: Promise<unknown>[] = [];
      await i.cache.getSnapshot(w.env, (p) => mine.push(p));
      await drain(mine);
      return i.cache.getSnapshot(w.env);
    }
  });

  it("reads the registry once when every isolate of a data center refills at the same instant, through the data center's relay", async () => {
    // The Cache API has no compare-and-set: isolates that find the entry stale together all
    // claim the refill. Without a data center (no relay) each of them reads the registry ...
    const alone = await refillTogether(undefined);
    expect(alone).toBe(1 + 20);
    // ... with it, their data center's relay reads it once for all of them.
    expect(await refillTogether("FRA")).toBe(1 + 1);

    async function refillTogether(colo: string | undefined): Promise<number> {
      vi.stubGlobal("caches", dataCenter());
      const w = world();
      const edges = await isolates(20);
      for (const i of edges) {
        if (colo) i.cache.noteDataCenter(colo);
        await i.cache.getSnapshot(w.env);
      }
      w.bump();
      vi.advanceTimersByTime(TTL + 1);
      const background: Promise<unknown>[] = [];
      await Promise.all(edges.map((i) => i.cache.getSnapshot(w.env, (p) => background.push(p))));
      await drain(background);
      for (const i of edges) expect((await i.cache.getSnapshot(w.env)).version).toBe(2);
      return w.reads.registry;
    }
  });

  it("reads the registry itself when its data center's relay cannot answer, so no call fails for it", async () => {
    const w = world();
    const [edge] = await isolates(1);
    edge.cache.noteDataCenter("FRA");
    w.breakRelays();
    expect((await edge.cache.getSnapshot(w.env)).version).toBe(1);
    expect(w.reads.registry).toBe(1);
  });

  it("serves its stale copy while the refresh runs, and never steps back to an older version", async () => {
    const w = world();
    const { cache } = await isolate();
    expect((await cache.getSnapshot(w.env)).version).toBe(1);
    w.bump();
    cache.publishSnapshot(w.env, snapshot(3), () => {});
    vi.advanceTimersByTime(TTL + 1);
    const background: Promise<unknown>[] = [];
    expect((await cache.getSnapshot(w.env, (p) => background.push(p))).version).toBe(3);
    await Promise.all(background);
    expect((await cache.getSnapshot(w.env)).version).toBe(3);
  });
});

describe("the health reporter", () => {
  it("has a failure reach the shard before the call goes on, and shows the shard's answer in this isolate's copy at once", async () => {
    const w = world();
    const { cache, reporter } = await isolate();
    await cache.getSnapshot(w.env);
    for (let i = 0; i < 3; i++) await reporter.report(w.env, sample(false), { urgent: false, background: () => {} });
    expect(w.reports).toHaveLength(3);
    expect(w.reports[0].policies).toEqual({ t: POLICY });
    expect(cache.currentSnapshot()!.health["p/t"].breaker.state).toBe("open");
    // The copy itself was not re-read: the answer patched it.
    expect(w.reads.registry).toBe(1);
  });

  it("coalesces a failure storm: one urgent report on its way per provider, the rest ride the next, and no call waits for another's", async () => {
    const w = world();
    const { cache, reporter } = await isolate();
    await cache.getSnapshot(w.env);
    const release = w.holdAnswers();
    const background: Promise<unknown>[] = [];
    const first = reporter.report(w.env, sample(false), { urgent: false, background: (p) => background.push(p) });
    const others = Array.from({ length: 9 }, () =>
      reporter.report(w.env, sample(false), { urgent: false, background: (p) => background.push(p) }),
    );
    // Nine calls failed while the first report was on its way: none of them waits for it.
    await Promise.all(others);
    expect(w.reports).toHaveLength(1);
    release();
    await first;
    await Promise.all(background);
    // The call whose report came back sent the nine in one more.
    expect(w.reports.map((r) => r.samples.length)).toEqual([1, 9]);
  });

  it("batches successes and sends them once per flush", async () => {
    const w = world();
    const { cache, reporter } = await isolate();
    await cache.getSnapshot(w.env);
    vi.useRealTimers(); // the flush waits on a real timer of the request that added the sample
    const flushes: Promise<unknown>[] = [];
    for (let i = 0; i < 49; i++)
      await reporter.report(w.env, sample(true), { urgent: false, background: (p) => flushes.push(p) });
    expect(w.reports).toHaveLength(0);
    await reporter.report(w.env, sample(true), { urgent: false, background: (p) => flushes.push(p) });
    await flushes.at(-1);
    expect(w.reports.map((r) => r.samples.length)).toEqual([50]);
  });
});
