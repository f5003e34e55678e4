/**
 * What the edge must know of one provider's health (docs/scale.md):
 * per tool, the breaker, its policy and the ranking statistics, plus whether calls found the
 * provider dead. A provider's health shard (durable-objects/health-object.ts) owns it, answers
 * every report with it (the isolate patches its snapshot copy), and sends it to the registry
 * only when its digest changes. The digest quantizes the statistics, so a batch that moves p50
 * from 41 to 42 ms changes nothing anyone must hear about; a breaker opening does. Pure.
 */
import { canonicalJson } from "../schema/schema-hash.ts";
import { healthKey, type OfferingHealth, type RegistrySnapshot } from "./catalog.ts";
import { DEFAULT_BREAKER, type BreakerPolicy, type HealthStats } from "./provider-health.ts";

export interface ProviderHealthView {
  provider: string;
  /**
   * Orders views of one provider: an isolate keeps a patch until its snapshot carries a view
   * at least this new (the shard's clock, never going back).
   */
  seq: number;
  /** By tool: exact statistics as of this view, the breaker and its policy. */
  tools: Record<string, OfferingHealth>;
  /** Calls could not reach the provider's Worker DEAD_AFTER_TRANSPORT_FAILURES times in a row; cleared when the registry revives it. */
  dead?: { since: number; reason: string };
}

/** E24: 24 steps a decade, each about 10% above the last. */
const E24 = [
  1.0, 1.1, 1.2, 1.3, 1.5, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7, 3.0, 3.3, 3.6, 3.9, 4.3, 4.7, 5.1, 5.6, 6.2, 6.8, 7.5, 8.2,
  9.1,
];

/** The nearest E24 step (on a log scale); 0 and below stay 0. */
export function roundToE24(x: number): number {
  if (!(x > 0)) return 0;
  const decade = 10 ** Math.floor(Math.log10(x));
  const m = x / decade;
  let best = E24[0];
  for (const step of [...E24, 10]) if (Math.abs(Math.log(m / step)) < Math.abs(Math.log(m / best))) best = step;
  return Number((best * decade).toPrecision(2));
}

/** Statistics as the digest sees them: p50 to about 10%, the error rate to whole percent, counts to about 10%. */
export function quantizeStats(s: HealthStats): HealthStats {
  return {
    p50_ms: s.p50_ms === null ? null : roundToE24(s.p50_ms),
    error_rate: s.error_rate === null ? null : Math.round(s.error_rate * 100) / 100,
    samples: s.samples < 10 ? s.samples : Math.round(roundToE24(s.samples)),
  };
}

/** What decides at once which provider may be called (breakers, policies, trials, liveness). */
export function breakerDigest(v: Pick<ProviderHealthView, "tools" | "dead">): string {
  const tools = Object.fromEntries(
    Object.entries(v.tools).map(([t, h]) => [t, { breaker: h.breaker, policy: h.policy }]),
  );
  return canonicalJson({ tools, dead: v.dead ?? null });
}

/** What ranking reads (p50 and error rate), quantized; the sample count only rides along. */
export function statsDigest(v: Pick<ProviderHealthView, "tools">): string {
  return canonicalJson(
    Object.fromEntries(
      Object.entries(v.tools).map(([t, h]) => {
        const q = quantizeStats(h);
        return [t, { p50_ms: q.p50_ms, error_rate: q.error_rate }];
      }),
    ),
  );
}

/** The whole edge-relevant content of a view (not its seq). */
export function viewDigest(v: Pick<ProviderHealthView, "tools" | "dead">): string {
  return `${breakerDigest(v)}|${statsDigest(v)}`;
}

/** The breaker policy of a provider's offer of a tool: its manifest's, over the defaults (docs/contract.md#circuit-breakers). */
export function policyOf(
  catalog: Pick<RegistrySnapshot, "tools"> | undefined,
  provider: string,
  tool: string,
): BreakerPolicy | undefined {
  const versions = catalog && Object.hasOwn(catalog.tools, tool) ? catalog.tools[tool].versions : undefined;
  if (!versions) return undefined;
  const offering = Object.values(versions)
    .flat()
    .find((o) => o.provider === provider);
  return offering ? { ...DEFAULT_BREAKER, ...(offering.manifest.breaker ?? {}) } : undefined;
}

/**
 * The snapshot an isolate uses: its base copy with the newer views it has been answered since
 * (`patches`, by provider). A patch replaces the provider's health entries and may add that
 * it is dead; only the registry revives a provider (section 9.4).
 */
export function withPatches(
  base: RegistrySnapshot,
  patches: ReadonlyMap<string, ProviderHealthView>,
): RegistrySnapshot {
  const newer = [...patches.values()].filter((v) => v.seq > (base.health_seq?.[v.provider] ?? -1));
  if (newer.length === 0) return base;
  const health = { ...base.health };
  const seqs = { ...base.health_seq };
  const dead = new Map<string, { since: number; reason: string }>();
  for (const v of newer) {
    for (const key of Object.keys(health)) if (key.startsWith(healthKey(v.provider, ""))) delete health[key];
    for (const [tool, h] of Object.entries(v.tools)) health[healthKey(v.provider, tool)] = h;
    seqs[v.provider] = v.seq;
    if (v.dead) dead.set(v.provider, v.dead);
  }
  const providers =
    dead.size === 0
      ? base.providers
      : base.providers.map((p) => (!p.dead && dead.has(p.name) ? { ...p, dead: dead.get(p.name)! } : p));
  return { ...base, providers, health, health_seq: seqs };
}
