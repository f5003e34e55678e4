/**
 * The executions' metric aggregates as /metrics prints them, from the two places they are kept:
 * `exec_stats` (one row per tool, provider, status, error code and latency bucket, written once
 * per key per consumer batch) and the tables kept before it (`exec_counts`, `latency_totals`,
 * and `latency_buckets`, whose counts are cumulative), which a database upgraded from before
 * migrations/0003_audit_rows_per_execution.sql still holds. Their sums are the figures.
 */
import { LATENCY_BUCKETS_S } from "./schema.ts";

type Row = Record<string, unknown>;

export interface ExecutionAggregates {
  /** Executions by tool, provider, status and error code, in that order. */
  counts: { tool: string; provider: string; status: string; error_code: string; n: number }[];
  /** Per tool and provider, in that order: executions, and their latencies summed in seconds. */
  totals: { tool: string; provider: string; count: number; sum_s: number }[];
  /** Per `tool\u0000provider`: executions at or under each bound (seconds), cumulative as Prometheus reads them. */
  buckets: Map<string, Map<number, number>>;
}

const byKey = (a: { key: string[] }, b: { key: string[] }) => {
  for (let i = 0; i < a.key.length; i++) if (a.key[i] !== b.key[i]) return a.key[i] < b.key[i] ? -1 : 1;
  return 0;
};

export function withStats(oldCounts: Row[], oldBuckets: Row[], oldTotals: Row[], stats: Row[]): ExecutionAggregates {
  const counts = new Map<string, { key: string[]; n: number }>();
  const totals = new Map<string, { key: string[]; count: number; sum_s: number; sum_ms: number }>();
  const buckets = new Map<string, Map<number, number>>();
  const countOf = (key: string[]) => {
    const id = key.join("\u0000");
    const c = counts.get(id) ?? { key, n: 0 };
    counts.set(id, c);
    return c;
  };
  const totalOf = (key: string[]) => {
    const id = key.join("\u0000");
    const t = totals.get(id) ?? { key, count: 0, sum_s: 0, sum_ms: 0 };
    totals.set(id, t);
    return t;
  };
  const bucketsOf = (tool: unknown, provider: unknown) => {
    const id = `${tool}\u0000${provider}`;
    const b = buckets.get(id) ?? new Map<number, number>();
    buckets.set(id, b);
    return b;
  };
  for (const r of oldCounts) countOf([r.tool, r.provider, r.status, r.error_code].map(String)).n += Number(r.n);
  for (const r of oldTotals) {
    const t = totalOf([String(r.tool), String(r.provider)]);
    t.count += Number(r.count);
    t.sum_s += Number(r.sum_s);
  }
  // Stored cumulative already: an execution incremented every bound it fits under.
  for (const r of oldBuckets) {
    const mine = bucketsOf(r.tool, r.provider);
    // Added, not set: each shard keeps its own (src/audit/shards.ts).
    mine.set(Number(r.le), (mine.get(Number(r.le)) ?? 0) + Number(r.n));
  }
  for (const r of stats) {
    countOf([r.tool, r.provider, r.status, r.error_code].map(String)).n += Number(r.n);
    const t = totalOf([String(r.tool), String(r.provider)]);
    t.count += Number(r.n);
    t.sum_ms += Number(r.sum_ms);
    if (r.le === "+Inf") continue;
    // An execution in the bucket of bound `le` fits under that bound and every larger one.
    const mine = bucketsOf(r.tool, r.provider);
    for (const le of LATENCY_BUCKETS_S) if (le >= Number(r.le)) mine.set(le, (mine.get(le) ?? 0) + Number(r.n));
  }
  return {
    counts: [...counts.values()]
      .sort(byKey)
      .map((c) => ({ tool: c.key[0], provider: c.key[1], status: c.key[2], error_code: c.key[3], n: c.n })),
    totals: [...totals.values()].sort(byKey).map((t) => ({
      tool: t.key[0],
      provider: t.key[1],
      count: t.count,
      // Milliseconds summed as integers, divided once: the same figure whichever batches they came in.
      sum_s: t.sum_ms === 0 ? t.sum_s : t.sum_s + t.sum_ms / 1000,
    })),
    buckets,
  };
}
