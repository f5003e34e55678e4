/**
 * The edge as it was before it kept a health view per provider ("before"), kept so that before and after are measured in
 * the same run, on the same machine, against the same objects. Its two per-isolate modules are
 * reproduced here from commit 9565364 (src/registry/snapshot-cache.ts and health-reporter.ts):
 * - a snapshot copy per isolate, refreshed from the registry object every TTL, dropped after a
 *   provider fault or a trial so that the next call re-reads it;
 * - one health batch per isolate sent to the registry object every 2 s or 50 samples, and every
 *   failure and trial outcome sent at once by the call that had it;
 * - the half-open trial asked of the registry object.
 * The registry still answers those calls (its `report` and `acquireTrial` hand them to the
 * providers' health shards, for isolates of an earlier build during a deploy), so the requests
 * it receives are the ones the old edge made. Lookup, eligibility and ranking are the real
 * modules, as in current.ts. Nothing here is part of the product.
 */
import type { ProviderOutcome } from "../../src/execution/provider-call.ts";
import { judge } from "../../src/registry/health-reporter.ts";
import { loadConfig } from "../../src/config.ts";
import { RuntimeError } from "../../src/errors.ts";
import { resolveTool } from "../../src/pipeline/lookup.ts";
import { admitFast } from "../../src/policy/admission.ts";
import { limitsFor } from "../../src/policy/limits.ts";
import type { RegistrySnapshot } from "../../src/registry/catalog.ts";
import { partitionOfferings, statsFor } from "../../src/registry/eligibility.ts";
import type { DeadReport, Sample } from "../../src/registry/provider-health.ts";
import { rankProviders } from "../../src/registry/rank.ts";
import { simulateProvider, type CreateEdge } from "./edge.ts";

/** The simulated callers reach every provider. */
const EVERY_CHANNEL = { channels: ["*"] };

const registry = (env: Env) => env.REGISTRY.get(env.REGISTRY.idFromName("registry"));

// ---- src/registry/snapshot-cache.ts as of 9565364 ----
let cached: { snapshot: RegistrySnapshot; fetchedAt: number } | undefined;
let refreshing = false;

async function getSnapshot(env: Env): Promise<RegistrySnapshot> {
  const ttl = loadConfig(env).snapshotTtlMs;
  if (cached && Date.now() - cached.fetchedAt < ttl) return cached.snapshot;
  if (cached) {
    if (!refreshing) {
      refreshing = true;
      void fetchSnapshot(env)
        .catch(() => {})
        .finally(() => (refreshing = false));
    }
    return cached.snapshot;
  }
  return fetchSnapshot(env);
}

async function fetchSnapshot(env: Env): Promise<RegistrySnapshot> {
  const snapshot = await registry(env).snapshot();
  if (!cached || snapshot.version >= cached.snapshot.version) cached = { snapshot, fetchedAt: Date.now() };
  return cached.snapshot;
}

// ---- src/registry/health-reporter.ts as of 9565364 ----
const BATCH = 50;
const FLUSH_MS = 2_000;
let samples: Sample[] = [];
let dead: DeadReport[] = [];
let lastFlush = 0;

async function report(env: Env, sample: Sample, options: { transport?: string; urgent: boolean }): Promise<void> {
  samples.push(sample);
  if (options.transport) dead.push({ provider: sample.provider, at: sample.at, reason: options.transport });
  if (options.urgent || !sample.ok || options.transport || samples.length >= BATCH) return flush(env);
  void new Promise((resolve) => setTimeout(resolve, FLUSH_MS)).then(() => {
    if (samples.length > 0 && Date.now() - lastFlush >= FLUSH_MS) return flush(env);
  });
}

async function flush(env: Env): Promise<void> {
  const batch = samples;
  const deadBatch = dead;
  samples = [];
  dead = [];
  if (batch.length === 0 && deadBatch.length === 0) return;
  lastFlush = Date.now();
  await registry(env)
    .report(batch, deadBatch)
    .catch(() => {});
}

export const createEdge: CreateEdge = (env, options) => ({
  async warm() {
    await getSnapshot(env);
  },

  async call(c) {
    const snapshot = await getSnapshot(env);
    const { offerings } = resolveTool(snapshot, EVERY_CHANNEL, c.tool);
    const { eligible } = partitionOfferings(offerings, snapshot, Date.now());
    const trialOf = new Map(eligible.map((e) => [e.offering.provider, e.trial]));
    const ranked = rankProviders(
      eligible.map((e) => e.offering),
      { stats: statsFor(snapshot, c.tool) },
    );
    if (ranked.length === 0) return "no_provider";

    let ticket: { release(): void } | undefined;
    if (options.admission) {
      try {
        ticket = await admitFast(env, c.tenant, c.tool, limitsFor(loadConfig(env).limits, c.tenant), () => {});
      } catch (err) {
        if (err instanceof RuntimeError && err.code === "rate_limited") return "refused";
        throw err;
      }
    }
    try {
      // After admission, as src/execution/trial.ts; a refused trial falls to the next provider.
      let chosen: { provider: string; trial: boolean } | undefined;
      for (const r of ranked) {
        const trial = trialOf.get(r.offering.provider) ?? false;
        if (trial && !(await registry(env).acquireTrial(r.offering.provider, c.tool))) continue;
        chosen = { provider: r.offering.provider, trial };
        break;
      }
      if (!chosen) return "no_provider";

      const startedAt = Date.now();
      const answer = await simulateProvider(chosen.provider, c);
      const verdict = judge(outcomeOf(answer), undefined);
      if (verdict)
        await report(
          env,
          { provider: chosen.provider, tool: c.tool, at: startedAt, latency_ms: answer.latency_ms, ok: verdict.ok },
          { transport: verdict.transport, urgent: chosen.trial },
        );
      // The old execution service dropped the copy after a provider fault or a trial.
      if (!answer.ok || chosen.trial) cached = undefined;
      return answer.ok ? "ok" : "failed";
    } finally {
      ticket?.release();
    }
  },
});

export function outcomeOf(answer: { ok: boolean; latency_ms: number }): ProviderOutcome {
  return answer.ok
    ? { kind: "result", result: { ok: true, output: {}, latency_us: answer.latency_ms * 1000 } }
    : {
        kind: "result",
        result: {
          ok: false,
          error: { code: "provider_crashed", message: "simulated failure" },
          latency_us: answer.latency_ms * 1000,
        },
      };
}
