/**
 * Provider capacity, seen from an execution (docs/contract.md#waiting): before a call is sent to a provider
 * that declares `max_concurrency`, it takes a permit from the provider's gate
 * (durable-objects/provider-gate.ts), and gives it back when the provider's call returns.
 * Providers without a limit cost nothing here: no gate is asked.
 *
 * Choosing where a call goes: the ranked providers in order, the first with room wins (so a
 * call whose best provider is full goes to the next-ranked one with room, when the tool has
 * one); when every one is full the call waits at the best one's gate, in `scheduled` — or, at
 * the edge, which never waits, goes down the object path to wait there. A tenant past its
 * share of that gate's line is refused (`rate_limited`, reason `provider_queue_share`).
 */
import type { ExecutionPlan, PlannedProvider } from "./execution-plan.ts";
import { noHealthyProvider } from "../pipeline/plan.ts";
import { RuntimeError } from "../errors.ts";
import { gateStub, registryStub } from "../object-stubs.ts";
import { returnTrial } from "./trial.ts";

/** A permit's lease past the call's own budget: a provider call may outlive its execution this long (WORK_CAP_MS) and more. */
const PERMIT_SLACK_MS = 120_000;
/** How long a caller waits before trying again when another call holds the trial. */
const TRIAL_RETRY_MS = 1_000;
/** When a tenant past its share of a provider's line may try again: about one call's turn. */
const QUEUE_SHARE_RETRY_MS = 1_000;

/** A permit for one call at a limited provider; `release` is idempotent and never throws. */
export interface Permit {
  provider: string;
  id: string;
  release(): void;
}

export type Claim =
  | { kind: "claimed"; plan: ExecutionPlan; permit: Permit | null }
  /** Every ranked provider is full: the call waits at `provider`'s gate (`position`, when it asked to wait). */
  | { kind: "full"; provider: string; position?: number };

/** A permit for a call at `p` now (or, with `wait`, a place in its queue); `null` permit: no limit. */
export async function acquirePermit(
  env: Env,
  p: PlannedProvider,
  o: { execution_id: string; tenant: string; permit_id: string; timeout_ms: number; wait: boolean },
): Promise<{ ok: true; permit: Permit | null } | { ok: false; position?: number }> {
  if (!p.max_concurrency) return { ok: true, permit: null };
  const answer = await gateStub(env, p.provider).acquire({
    provider: p.provider,
    permit_id: o.permit_id,
    execution_id: o.execution_id,
    tenant: o.tenant,
    limit: p.max_concurrency,
    lease_ms: o.timeout_ms + PERMIT_SLACK_MS,
    wait: o.wait,
  });
  if (answer.ok) return { ok: true, permit: permitOf(env, p.provider, o.permit_id) };
  if ("reason" in answer) {
    throw new RuntimeError(
      "rate_limited",
      `over the tenant's share of ${answer.limit} calls waiting for room at provider ${p.provider}`,
      {
        reason: "provider_queue_share",
        limit: answer.limit,
        provider: p.provider,
        retry_after_ms: QUEUE_SHARE_RETRY_MS,
      },
    );
  }
  return answer;
}

/** A permit the gate granted to a waiter (ProviderGate → ExecutionObject.capacityGranted). */
export function permitOf(env: Env, provider: string, id: string): Permit {
  let released = false;
  return {
    provider,
    id,
    release: () => {
      if (released) return;
      released = true;
      void gateStub(env, provider)
        .release(id)
        .catch((err) =>
          console.warn(
            JSON.stringify({
              msg: "permit not given back; its lease ends by itself",
              provider,
              permit: id,
              error: String(err),
            }),
          ),
        );
    },
  };
}

/**
 * Picks the provider the call goes to and takes its permit (and its half-open trial, docs/contract.md#circuit-breakers,
 * after the permit: a call that cannot run never holds a trial). Throws `no_healthy_provider`
 * when every provider was passed over for a trial another call holds.
 */
export async function claimProvider(
  env: Env,
  planned: ExecutionPlan,
  o: { wait: boolean; attempt?: number },
): Promise<Claim> {
  let candidates = planned.providers;
  const permitId = `${planned.execution_id}:${o.attempt ?? 1}`;
  for (;;) {
    if (candidates.length === 0) {
      throw noHealthyProvider(planned.tool, planned.version, [
        {
          offering: { provider: planned.providers[0].provider },
          reason: "circuit half-open, its trial call is under way",
          retry_at: Date.now() + TRIAL_RETRY_MS,
        },
      ]);
    }
    let chosen: { p: PlannedProvider; permit: Permit | null } | undefined;
    for (const p of candidates) {
      const got = await acquirePermit(env, p, {
        execution_id: planned.execution_id,
        tenant: planned.tenant,
        permit_id: permitId,
        timeout_ms: planned.timeout_ms,
        wait: false,
      });
      if (got.ok) {
        chosen = { p, permit: got.permit };
        break;
      }
    }
    if (!chosen) {
      const best = candidates[0];
      if (!o.wait) return { kind: "full", provider: best.provider };
      const queued = await acquirePermit(env, best, {
        execution_id: planned.execution_id,
        tenant: planned.tenant,
        permit_id: permitId,
        timeout_ms: planned.timeout_ms,
        wait: true,
      });
      if (!queued.ok)
        return {
          kind: "full",
          provider: best.provider,
          ...(queued.position !== undefined ? { position: queued.position } : {}),
        };
      chosen = { p: best, permit: queued.permit };
    }
    const claimed = await withTrial(env, { ...planned, providers: candidates }, chosen.p, chosen.permit);
    if (claimed) return claimed;
    candidates = candidates.filter((c) => c !== chosen!.p);
  }
}

/**
 * A permit the gate granted later: the plan with that provider first (and its trial taken), or
 * undefined when the trial is held by another call — then the permit is given back and the
 * caller claims again among the rest.
 */
export async function claimGranted(env: Env, planned: ExecutionPlan, permit: Permit): Promise<Claim | undefined> {
  const p = planned.providers.find((c) => c.provider === permit.provider);
  if (!p) {
    permit.release();
    return undefined;
  }
  return withTrial(env, planned, p, permit);
}

async function withTrial(
  env: Env,
  planned: ExecutionPlan,
  p: PlannedProvider,
  permit: Permit | null,
): Promise<Claim | undefined> {
  if (p.trial && !(await registryStub(env).acquireTrial(p.provider, planned.tool))) {
    permit?.release();
    return undefined;
  }
  // The chosen one first; fallbacks keep their order, and none of them is on trial.
  const rest = planned.providers.filter((c) => c !== p && !c.trial);
  return { kind: "claimed", plan: { ...planned, providers: [p, ...rest] }, permit };
}

/** Gives back a trial a plan held when its call will not run after all. */
export async function abandonTrial(env: Env, plan: ExecutionPlan): Promise<void> {
  if (plan.providers[0]?.trial) await returnTrial(env, plan.providers[0].provider, plan.tool);
}
