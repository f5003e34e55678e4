/**
 * The edge as the code stands ("current"), wired from the real modules so that the simulated
 * isolate keeps its snapshot and its health batch exactly as a real one does:
 * - the per-isolate snapshot cache, TTL and background refresh: src/registry/snapshot-cache.ts;
 * - lookup, eligibility (breakers, half-open trials) and ranking: src/pipeline/lookup.ts,
 *   src/registry/eligibility.ts, src/registry/rank.ts; the trial is asked of the registry as
 *   src/pipeline/plan.ts does, for the provider about to be called only;
 * - admission (optional): the fast path's per-isolate lease, src/policy/admission.ts;
 * - outcome judging and batching (every 2 s or 50 samples; failures and trials at once):
 *   src/registry/health-reporter.ts;
 * - after a provider fault or a trial the isolate drops its snapshot, as the execution service
 *   does (src/execution/service.ts: `forgetSnapshot()` when an attempt's outcome is a provider fault).
 * The measurements of the code before the execution core (issue 12) are in docs/scale.md.
 * Simplified: one attempt per call (the retry engine would add f² more failed attempts), no
 * capability levels or schema (they never reach a shared object), the provider is simulated.
 */
import type { ProviderOutcome } from "../../src/execution/provider-call.ts";
import { judge, report } from "../../src/registry/health-reporter.ts";
import { loadConfig } from "../../src/config.ts";
import { RuntimeError } from "../../src/errors.ts";
import { resolveTool } from "../../src/pipeline/lookup.ts";
import { admitFast } from "../../src/policy/admission.ts";
import { limitsFor } from "../../src/policy/limits.ts";
import { partitionOfferings, statsFor } from "../../src/registry/eligibility.ts";
import { rankProviders } from "../../src/registry/rank.ts";
import { forgetSnapshot, getSnapshot, registryStub } from "../../src/registry/snapshot-cache.ts";
import { simulateProvider, type CreateEdge } from "./edge.ts";

export const createEdge: CreateEdge = (env, options) => ({
  async warm() {
    await getSnapshot(env);
  },

  async call(c) {
    // Stages 2-3: the isolate's snapshot (a background refresh when stale), then who may serve.
    const snapshot = await getSnapshot(env, () => {});
    const { offerings } = resolveTool(snapshot, c.tool);
    const { eligible } = partitionOfferings(offerings, snapshot, Date.now());
    const trialOf = new Map(eligible.map((e) => [e.offering.provider, e.trial]));
    const ranked = rankProviders(
      eligible.map((e) => e.offering),
      { stats: statsFor(snapshot, c.tool) },
    );
    let chosen: { provider: string; trial: boolean } | undefined;
    for (const r of ranked) {
      const trial = trialOf.get(r.offering.provider) ?? false;
      if (trial && !(await registryStub(env).acquireTrial(r.offering.provider, c.tool))) continue;
      chosen = { provider: r.offering.provider, trial };
      break;
    }
    if (!chosen) return "no_provider";

    let ticket: { release(): void } | undefined;
    if (options.admission) {
      try {
        ticket = await admitFast(env, c.tenant, c.tool, limitsFor(loadConfig(env).limits, c.tenant), () => {});
      } catch (err) {
        if (err instanceof RuntimeError && err.code === "rate_limited") return "refused";
        throw err;
      }
    }

    // Stage 6, simulated; then what the execution object does with the outcome.
    const startedAt = Date.now();
    const answer = await simulateProvider(chosen.provider, c);
    const outcome: ProviderOutcome = answer.ok
      ? { kind: "result", result: { ok: true, output: {}, latency_us: answer.latency_ms * 1000 } }
      : { kind: "result", result: { ok: false, error: { code: "provider_crashed", message: "simulated failure" }, latency_us: answer.latency_ms * 1000 } };
    const verdict = judge(outcome, undefined);
    if (verdict) {
      await report(env, { provider: chosen.provider, tool: c.tool, at: startedAt, latency_ms: answer.latency_ms, ok: verdict.ok }, { transport: verdict.transport, urgent: chosen.trial, background: () => {} });
    }
    ticket?.release();
    if (!answer.ok || chosen.trial) forgetSnapshot();
    return answer.ok ? "ok" : "failed";
  },
});
