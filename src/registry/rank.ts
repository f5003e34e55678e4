/**
 * docs/contract.md#ranking multi-provider selection, as a pure function: explicit provider, then trust,
 * then historical p50 latency, then error rate, then registration order. Callers filter out
 * providers the caller may not reach (docs/contract.md#capabilities level 1) before ranking.
 */
import { TRUST_ORDER } from "../contract.ts";
import type { Offering } from "./catalog.ts";

export interface ProviderStats {
  p50_ms: number | null;
  error_rate: number | null;
}

export interface RankedOffering {
  offering: Offering;
  /** Why this offering stands above the next one, in words (dry run and logs show it). */
  reason: string;
}

type Criterion = {
  name: string;
  compare: (a: Offering, b: Offering) => number;
  say: (a: Offering, b: Offering) => string;
};

export function rankProviders(
  offerings: readonly Offering[],
  options: { explicit?: string; stats?: Readonly<Record<string, ProviderStats>> } = {},
): RankedOffering[] {
  if (options.explicit !== undefined) {
    // Criterion 1: the caller's explicit choice, and only it; no fall-back to another provider.
    const chosen = offerings.find((o) => o.provider === options.explicit);
    return chosen ? [{ offering: chosen, reason: "named by the caller" }] : [];
  }
  const stats = options.stats ?? {};
  const known = (v: number | null | undefined) => (v === null || v === undefined ? Infinity : v);
  const criteria: Criterion[] = [
    {
      name: "trust",
      compare: (a, b) => TRUST_ORDER.indexOf(a.trust) - TRUST_ORDER.indexOf(b.trust),
      say: (a, b) => `trust ${a.trust} > ${b.trust}`,
    },
    {
      name: "p50",
      compare: (a, b) => cmp(known(stats[a.provider]?.p50_ms), known(stats[b.provider]?.p50_ms)),
      say: (a, b) => `p50 ${fmt(stats[a.provider]?.p50_ms, "ms")} < ${fmt(stats[b.provider]?.p50_ms, "ms")}`,
    },
    {
      name: "error_rate",
      compare: (a, b) => cmp(known(stats[a.provider]?.error_rate), known(stats[b.provider]?.error_rate)),
      say: (a, b) => `error rate ${fmt(stats[a.provider]?.error_rate, "")} < ${fmt(stats[b.provider]?.error_rate, "")}`,
    },
    {
      name: "registration",
      compare: (a, b) => a.seq - b.seq,
      say: () => "registered earlier",
    },
  ];
  const decide = (a: Offering, b: Offering) => {
    for (const c of criteria) {
      const d = c.compare(a, b);
      if (d !== 0) return { d, c };
    }
    return { d: 0, c: undefined };
  };
  const sorted = [...offerings].sort((a, b) => decide(a, b).d);
  return sorted.map((offering, i) => {
    const next = sorted[i + 1];
    if (!next) return { offering, reason: sorted.length === 1 ? "only provider" : "last choice" };
    const { c } = decide(offering, next);
    return { offering, reason: c ? `${c.say(offering, next)} (vs ${next.provider})` : `tied with ${next.provider}` };
  });
}

function cmp(a: number, b: number): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

function fmt(v: number | null | undefined, unit: string): string {
  return v === null || v === undefined ? "unknown" : `${Math.round(v * 1000) / 1000}${unit}`;
}
