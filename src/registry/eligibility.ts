/**
 * Which offerings may be called now (docs/contract.md#liveness, docs/contract.md#circuit-breakers), from the edge's
 * snapshot. Pure. Excluded offerings say why and, when known, when to try again.
 */
import type { Offering, RegistrySnapshot } from "./catalog.ts";
import { healthKey } from "./catalog.ts";
import { breakerView, type BreakerView } from "./provider-health.ts";
import type { ProviderStats } from "./rank.ts";

export interface Eligible {
  offering: Offering;
  /** Half-open breaker: this call would be the one trial, if the registry grants it. */
  trial: boolean;
}

export interface Excluded {
  offering: Offering;
  reason: string;
  /** Epoch ms after which it may be eligible again. */
  retry_at?: number;
}

/** How long a dead provider is skipped before the registry probes it again. */
export const DEAD_RETRY_MS = 30_000;

export function partitionOfferings(
  offerings: readonly Offering[],
  snapshot: RegistrySnapshot,
  now: number,
): { eligible: Eligible[]; excluded: Excluded[] } {
  const providers = new Map(snapshot.providers.map((p) => [p.name, p]));
  const eligible: Eligible[] = [];
  const excluded: Excluded[] = [];
  for (const offering of offerings) {
    const p = providers.get(offering.provider);
    if (p?.disabled) {
      excluded.push({ offering, reason: "disabled by an operator" });
      continue;
    }
    if (p?.dead) {
      excluded.push({
        offering,
        reason: `dead since ${new Date(p.dead.since).toISOString()}: ${p.dead.reason}`,
        retry_at: p.dead.since + DEAD_RETRY_MS,
      });
      continue;
    }
    const health = snapshot.health[healthKey(offering.provider, offering.manifest.name)];
    const view: BreakerView = health ? breakerView(health.breaker, now) : "closed";
    if (view === "open") {
      excluded.push({
        offering,
        reason: `circuit open until ${new Date(health!.breaker.until!).toISOString()}`,
        retry_at: health!.breaker.until,
      });
    } else if (
      view === "half_open" &&
      health!.breaker.trial_at !== undefined &&
      now - health!.breaker.trial_at < health!.policy.cooldown_ms
    ) {
      excluded.push({
        offering,
        reason: "circuit half-open, its trial call is under way",
        retry_at: health!.breaker.trial_at + health!.policy.cooldown_ms,
      });
    } else {
      eligible.push({ offering, trial: view === "half_open" });
    }
  }
  return { eligible, excluded };
}

/** Ranking inputs (docs/contract.md#ranking criteria 3 and 4) for a tool's providers. */
export function statsFor(snapshot: RegistrySnapshot, tool: string): Record<string, ProviderStats> {
  const out: Record<string, ProviderStats> = {};
  for (const p of snapshot.providers) {
    const h = snapshot.health[healthKey(p.name, tool)];
    if (h) out[p.name] = { p50_ms: h.p50_ms, error_rate: h.error_rate };
  }
  return out;
}

/** The breaker state to show for an offering. */
export function breakerStateOf(snapshot: RegistrySnapshot, provider: string, tool: string, now: number): BreakerView {
  const h = snapshot.health[healthKey(provider, tool)];
  return h ? breakerView(h.breaker, now) : "closed";
}

/**
 * The first instant after `now` at which the clock alone changes what `partitionOfferings`
 * answers for this snapshot: an open breaker's cooldown ends (it turns half-open), or a
 * half-open breaker's trial window ends. Infinity when nothing is waiting on the clock. Until
 * then, the same snapshot gives the same eligibility and order (a new health view or version is
 * a new snapshot object).
 */
export function nextClockChange(snapshot: RegistrySnapshot, now: number): number {
  let next = Infinity;
  for (const h of Object.values(snapshot.health)) {
    const b = h.breaker;
    if (b.state !== "open") continue;
    if (b.until !== undefined && b.until > now) next = Math.min(next, b.until);
    const trialEnds = b.trial_at === undefined ? undefined : b.trial_at + h.policy.cooldown_ms;
    if (trialEnds !== undefined && trialEnds > now) next = Math.min(next, trialEnds);
  }
  return next;
}
