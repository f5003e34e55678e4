/**
 * The pure parts of `npm run simulate:audit` (sim/audit/run.ts): a seeded PRNG, the Zipf
 * sampler that picks each call's tenant, the delivery plan (which messages the queue hands the
 * consumer together), the projections from what one short run measured to a 24 h window, and
 * the table. No database, no clock: tested in test/unit/sim/audit-model.test.ts.
 */

/** A seeded PRNG (mulberry32): the same seed gives the same run. Numbers in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Zipf's law over ranks 1..n with exponent s: rank k's share is k^-s / Σ j^-s. Index 0 is rank 1. */
export function zipfShares(n: number, s: number): number[] {
  const w = Array.from({ length: n }, (_, i) => (i + 1) ** -s);
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

/** A sampler of ranks (0-based: 0 is the most frequent) with the given shares, driven by `random`. */
export function sampler(shares: readonly number[], random: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (const s of shares) cumulative.push((sum += s));
  return () => {
    const u = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
}

/** One message of the plan: an execution's record, or its CPU report. */
export type Planned = { kind: "finished"; execution: number } | { kind: "usage"; execution: number };

/**
 * The deliveries the queue makes of `executions` executions, in order, `batchSize` messages
 * each (the consumer's max_batch_size: at 100 calls/s and more every batch is full): each
 * execution's record, then its CPU report in the same delivery when `sameDelivery()` says so
 * and there is room, else at the start of the next one (the tail Worker's message was slower).
 */
export function planDeliveries(executions: number, batchSize: number, sameDelivery: () => boolean): Planned[][] {
  const deliveries: Planned[][] = [];
  let late: Planned[] = [];
  let next = 0;
  while (next < executions || late.length > 0) {
    const delivery: Planned[] = late.slice(0, batchSize);
    late = late.slice(batchSize);
    while (delivery.length < batchSize && next < executions) {
      const e = next++;
      delivery.push({ kind: "finished", execution: e });
      if (sameDelivery() && delivery.length < batchSize) delivery.push({ kind: "usage", execution: e });
      else late.push({ kind: "usage", execution: e });
    }
    deliveries.push(delivery);
  }
  return deliveries;
}

/** What one shard took in one run of `seconds` simulated seconds. */
export interface ShardCount {
  /** Execution records written to it. */
  executions: number;
  /** D1 rows written (`meta.rows_written` of every statement, index entries included). */
  rows: number;
  /** D1 requests: batches, and single statements (`first`, `all`, `run`). */
  requests: number;
  batches: number;
  /** Its size after the run minus before (`meta.size_after`). */
  bytes: number;
}

/** D1's size limit per database (docs/scale.md section 3.1): 10 GB. */
export const D1_MAX_BYTES = 10e9;
export const DAY_S = 86_400;

export interface ShardProjection extends ShardCount {
  shard: number;
  /** Its share of the run's executions. */
  share: number;
  perSecond: { executions: number; rows: number; requests: number; batches: number; bytes: number };
  /** Bytes kept per execution (its bytes over its executions; NaN without any). */
  bytesPerExecution: number;
  /** Bytes a full retention window would hold: bytes/s × window. */
  windowBytes: number;
  /** …as a share of 10 GB, and of the size bound (AUDIT_MAX_EXECUTIONS × bytes per execution). */
  ofD1Limit: number;
  ofCap: number;
  /** Hours of window it holds: until AUDIT_MAX_EXECUTIONS or 10 GB, whichever comes first, at most the retention. */
  hoursHeld: number;
}

export interface Limits {
  /** AUDIT_MAX_EXECUTIONS: rows of executions each shard keeps at most. */
  maxExecutions: number;
  /** EXECUTION_RETENTION_MS, in seconds. */
  windowSeconds: number;
  /** Bytes a database holds at most (D1: 10 GB). */
  maxBytes: number;
}

/** Executions one shard holds at most: its size bound, or fewer when that many would pass `maxBytes`. */
export function shardCapacity(limits: Limits, bytesPerExecution: number): number {
  return Math.min(limits.maxExecutions, Math.floor(limits.maxBytes / bytesPerExecution));
}

/**
 * Per shard: per-second rates and what a full window would hold. `bytesPerExecution` is the
 * run's (all shards' bytes over all executions), the best estimate for a shard with few.
 */
export function project(counts: readonly ShardCount[], seconds: number, limits: Limits): ShardProjection[] {
  const executions = counts.reduce((a, c) => a + c.executions, 0);
  const bytes = counts.reduce((a, c) => a + c.bytes, 0);
  const overall = executions > 0 ? bytes / executions : NaN;
  return counts.map((c, shard) => {
    const perSecond = {
      executions: c.executions / seconds,
      rows: c.rows / seconds,
      requests: c.requests / seconds,
      batches: c.batches / seconds,
      bytes: c.bytes / seconds,
    };
    const windowBytes = perSecond.bytes * limits.windowSeconds;
    const capacity = shardCapacity(limits, overall);
    const windowExecutions = perSecond.executions * limits.windowSeconds;
    return {
      ...c,
      shard,
      share: executions > 0 ? c.executions / executions : 0,
      perSecond,
      bytesPerExecution: c.executions > 0 ? c.bytes / c.executions : NaN,
      windowBytes,
      ofD1Limit: windowBytes / limits.maxBytes,
      ofCap: windowBytes / (limits.maxExecutions * overall),
      hoursHeld: windowExecutions <= capacity ? limits.windowSeconds / 3600 : capacity / perSecond.executions / 3600,
    };
  });
}

/**
 * The fewest shards (up to `maxShards`) whose busiest one holds a full window at `rate`
 * calls/s, with tenants' shares `shares` and `shardOf(tenant, n)` placing them; or, when no
 * number does, `null` and why: the hottest tenant alone is more than one shard holds.
 */
export function shardsForWindow(
  shares: readonly number[],
  rate: number,
  capacity: number,
  windowSeconds: number,
  shardOf: (tenant: number, n: number) => number,
  maxShards = 1024,
): { shards: number | null; busiestShare: number; hottestTenantPerWindow: number } {
  const hottestTenantPerWindow = Math.max(...shares) * rate * windowSeconds;
  let busiestShare = 1;
  if (hottestTenantPerWindow > capacity)
    return { shards: null, busiestShare: Math.max(...shares), hottestTenantPerWindow };
  for (let n = 1; n <= maxShards; n++) {
    const load = new Array<number>(n).fill(0);
    shares.forEach((s, t) => (load[shardOf(t, n)] += s));
    busiestShare = Math.max(...load);
    if (busiestShare * rate * windowSeconds <= capacity) return { shards: n, busiestShare, hottestTenantPerWindow };
  }
  return { shards: null, busiestShare, hottestTenantPerWindow };
}

/** A number with thousands separators and `digits` decimals. */
export function num(x: number, digits = 0): string {
  if (!Number.isFinite(x)) return "–";
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Bytes as B, KB, MB, GB (powers of 1,000, as D1's limits are written). */
export function bytes(x: number): string {
  if (!Number.isFinite(x)) return "–";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let u = 0;
  while (Math.abs(x) >= 1000 && u < units.length - 1) {
    x /= 1000;
    u++;
  }
  return `${x.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%` : "–");

/** Rows of cells as aligned columns: the first column left-aligned, the others right-aligned. */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0)));
  return rows
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "))
    .join("\n");
}

/** One cell's table: a line per shard. */
export function shardTable(shards: readonly ShardProjection[]): string {
  return columns([
    [
      "shard",
      "share",
      "exec/s",
      "rows/s",
      "rows/exec",
      "D1 req/s",
      "batches/s",
      "bytes/s",
      "B/exec",
      "24 h",
      "of 10 GB",
      "of cap",
      "window held",
    ],
    ...shards.map((s) => [
      String(s.shard),
      pct(s.share),
      num(s.perSecond.executions, 1),
      num(s.perSecond.rows, 0),
      num(s.rows / s.executions, 2),
      num(s.perSecond.requests, 1),
      num(s.perSecond.batches, 1),
      bytes(s.perSecond.bytes),
      num(s.bytesPerExecution, 0),
      bytes(s.windowBytes),
      pct(s.ofD1Limit),
      pct(s.ofCap),
      `${s.hoursHeld.toFixed(1)} h`,
    ]),
  ]);
}

/** One line of the summary: a cell's busiest shard, and the shards a full window would need. */
export interface CellSummary {
  rate: number;
  shards: number;
  executions: number;
  busiest: ShardProjection;
  needed: { shards: number | null; busiestShare: number; hottestTenantPerWindow: number };
}

/** The summary across cells: the busiest shard of each, and the shards a full window needs. */
export function summaryTable(cells: readonly CellSummary[]): string {
  return columns([
    [
      "calls/s",
      "N",
      "busiest",
      "its share",
      "rows/s",
      "D1 req/s",
      "bytes/s",
      "24 h",
      "of 10 GB",
      "window held",
      "N for 24 h",
    ],
    ...cells.map((c) => [
      num(c.rate),
      String(c.shards),
      String(c.busiest.shard),
      pct(c.busiest.share),
      num(c.busiest.perSecond.rows, 0),
      num(c.busiest.perSecond.requests, 1),
      bytes(c.busiest.perSecond.bytes),
      bytes(c.busiest.windowBytes),
      pct(c.busiest.ofD1Limit),
      `${c.busiest.hoursHeld.toFixed(1)} h`,
      c.needed.shards === null
        ? `none (top tenant ${num(c.needed.hottestTenantPerWindow / 1e6, 1)} M/24 h)`
        : String(c.needed.shards),
    ]),
  ]);
}
