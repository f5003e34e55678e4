/**
 * The edge as the code stands ("current", with a health view per provider: src/registry/health-view.ts), wired from the real modules so that
 * the simulated isolate keeps its snapshot, its patches and its health batches exactly as a
 * real one does:
 * - the snapshot's tiers (isolate memory, the data center's Cache API entry, its relay, the
 *   registry object) and the patches from the health shards' answers: src/registry/snapshot-cache.ts;
 *   the Cache API is the gateway's (one data center: sim/gateway, sim/remote-cache.ts);
 * - lookup, eligibility (breakers, half-open trials) and ranking: src/pipeline/lookup.ts,
 *   src/registry/eligibility.ts, src/registry/rank.ts;
 * - admission (optional) from the isolate's lease: src/policy/admission.ts; then the trial,
 *   asked of the provider's health shard after admission: src/registry/health-client.ts, as
 *   src/execution/trial.ts does;
 * - outcome judging, batching per provider, the coalesced urgent reports and the patch from
 *   each answer: src/registry/health-reporter.ts. Nothing drops the copy after a fault.
 * Simplified: one attempt per call (the retry engine would add f² more failed attempts), no
 * capability levels or schema (they never reach a shared object), the provider is simulated.
 */
import { loadConfig } from "../../src/config.ts";
import { RuntimeError } from "../../src/errors.ts";
import { resolveTool } from "../../src/pipeline/lookup.ts";
import { admitFast } from "../../src/policy/admission.ts";
import { limitsFor } from "../../src/policy/limits.ts";
import { partitionOfferings, statsFor } from "../../src/registry/eligibility.ts";
import { acquireTrial } from "../../src/registry/health-client.ts";
import { judge, report } from "../../src/registry/health-reporter.ts";
import { rankProviders } from "../../src/registry/rank.ts";
import { getSnapshot, noteDataCenter } from "../../src/registry/snapshot-cache.ts";
import { outcomeOf } from "./before.ts";
import { simulateProvider, type CreateEdge } from "./edge.ts";

/** The simulated callers reach every provider. */
const EVERY_CHANNEL = { channels: ["*"] };

export const createEdge: CreateEdge = (env, options) => {
  // Every simulated isolate runs in the one simulated data center (the gateway's cache), so they share its relay.
  if (options.relay) noteDataCenter("SIM");
  // What the request's waitUntil would keep alive (background refreshes, batch timers, follow-up reports).
  const background = (p: Promise<unknown>) => void p.catch(() => {});
  return {
    async warm() {
      await getSnapshot(env);
    },

    async call(c) {
      // Stages 2-3: the isolate's snapshot (a background refresh when stale), then who may serve.
      const snapshot = await getSnapshot(env, background);
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
          ticket = await admitFast(env, c.tenant, c.tool, limitsFor(loadConfig(env).limits, c.tenant), background);
        } catch (err) {
          if (err instanceof RuntimeError && err.code === "rate_limited") return "refused";
          throw err;
        }
      }
      try {
        let chosen: { provider: string; trial: boolean } | undefined;
        for (const r of ranked) {
          const trial = trialOf.get(r.offering.provider) ?? false;
          if (trial && !(await acquireTrial(env, r.offering.provider, c.tool))) continue;
          chosen = { provider: r.offering.provider, trial };
          break;
        }
        if (!chosen) return "no_provider";

        // Stage 6, simulated; then what the attempt does with the outcome (src/execution/attempt.ts).
        const startedAt = Date.now();
        const answer = await simulateProvider(chosen.provider, c);
        const verdict = judge(outcomeOf(answer), undefined);
        if (verdict) {
          await report(
            env,
            { provider: chosen.provider, tool: c.tool, at: startedAt, latency_ms: answer.latency_ms, ok: verdict.ok },
            { transport: verdict.transport, urgent: chosen.trial, background },
          );
        }
        return answer.ok ? "ok" : "failed";
      } finally {
        ticket?.release();
      }
    },
  };
};
