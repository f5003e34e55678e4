/**
 * docs/contract.md#circuit-breakers, half-open: a provider whose cooldown is over serves exactly one trial call, granted
 * by the provider's health shard (src/registry/health-client.ts). It is asked for only when the call is about to be dispatched — after
 * admission — so a call refused before then never holds a trial; a trial that never reaches
 * the provider is handed back; and the provider's first sign of life decides it (attempt.ts).
 */
import { noHealthyProvider } from "../pipeline/plan.ts";
import { acquireTrial, returnTrial as handBack } from "../registry/health-client.ts";
import type { ExecutionPlan } from "./execution-plan.ts";

/** How long a caller waits before trying again when another call holds the trial. */
const TRIAL_RETRY_MS = 1_000;

/**
 * The plan with its trial granted, or with the half-open provider dropped when another call
 * holds the trial (the next same-contract provider serves instead); throws
 * `no_healthy_provider` naming it when none is left.
 */
export async function takeTrial(env: Env, plan: ExecutionPlan): Promise<ExecutionPlan> {
  const first = plan.providers[0];
  if (!first.trial) return plan;
  if (await acquireTrial(env, first.provider, plan.tool)) return plan;
  const rest = plan.providers.slice(1);
  if (rest.length > 0) return { ...plan, providers: rest };
  throw noHealthyProvider(plan.tool, plan.version, [
    {
      offering: { provider: first.provider },
      reason: "circuit half-open, its trial call is under way",
      retry_at: Date.now() + TRIAL_RETRY_MS,
    },
  ]);
}

/** Hands a granted trial back: the call never reached the provider (refused, out of budget, cancelled first). */
export async function returnTrial(env: Env, provider: string, tool: string): Promise<void> {
  await handBack(env, provider, tool).catch((err) =>
    console.warn(
      JSON.stringify({
        msg: "trial not handed back; it is given out again after a cooldown",
        provider,
        tool,
        error: String(err),
      }),
    ),
  );
}
