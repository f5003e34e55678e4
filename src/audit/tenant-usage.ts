/**
 * What a tenant used (`GET /v1/usage`, docs/contract.md#usage): its executions by UTC day (of
 * acceptance) and tool, counted by status, with its providers' reported CPU time and a cost
 * estimate at the price model of src/audit/usage-prices.ts. Read from the audit store in one
 * grouped query along `executions_by_tenant` (tenant, accepted_at): it reads the tenant's rows
 * in the window and nothing else, and needs no index of its own (none is written per execution).
 * The store holds only the retention window, so the answer says how far back it reaches.
 */
import type { TenantUsage, UsageSums } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { estimateCost, PRICES, roundUsd } from "./usage-prices.ts";

/** The longest window one answer covers, in days. */
export const MAX_USAGE_DAYS = 92;
/** The window when none is asked: the last seven days, today included. */
const DEFAULT_DAYS = 7;
const DAY_MS = 86_400_000;

export interface UsageWindow {
  from: string;
  to: string;
  tool?: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Reads `from`, `to` (UTC days, inclusive) and `tool`; `today` is when the request came (epoch ms). */
export function parseUsageWindow(q: (name: string) => string | undefined, today: number): UsageWindow {
  const day = (name: string, fallback: number) => {
    const v = q(name);
    if (v === undefined) return new Date(fallback).toISOString().slice(0, 10);
    const t = Date.parse(`${v}T00:00:00Z`);
    if (!DATE.test(v) || Number.isNaN(t) || new Date(t).toISOString().slice(0, 10) !== v)
      throw new RuntimeError("invalid_request", `${name} must be a date, YYYY-MM-DD`, { field: name });
    return v;
  };
  const to = day("to", today);
  const from = day("from", Date.parse(to) - (DEFAULT_DAYS - 1) * DAY_MS);
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (days < 1) throw new RuntimeError("invalid_request", "from must not be after to", { field: "from" });
  if (days > MAX_USAGE_DAYS)
    throw new RuntimeError("invalid_request", `at most ${MAX_USAGE_DAYS} days at once`, { field: "from" });
  const tool = q("tool");
  return { from, to, ...(tool !== undefined ? { tool } : {}) };
}

interface Group {
  day: string;
  tool: string;
  status: string;
  edge: number;
  n: number;
  cpu_ms: number | null;
}

/**
 * A report's CPU time is on its execution's row (`usage_json`) or, when it arrived before the
 * record, in `usage`; the first of an attempt stands (src/audit/records.ts mergeUsage), so a row's
 * attempt that `usage` also holds is counted from `usage` only. The path is the id's: an edge id
 * is `exec_e` and 44 hex digits, 50 characters; an object's `exec_` and 64 (src/execution/ids.ts).
 */
const GROUPS = `SELECT date(e.accepted_at / 1000, 'unixepoch') AS day, e.tool, e.status, length(e.execution_id) = 50 AS edge,
    COUNT(*) AS n,
    SUM((SELECT SUM(c) FROM (SELECT u.cpu_ms AS c FROM usage u WHERE u.execution_id = e.execution_id
      UNION ALL SELECT json_extract(j.value, '$.cpu_ms') FROM json_each(e.usage_json) j
        WHERE json_extract(j.value, '$.attempt') NOT IN (SELECT attempt FROM usage WHERE execution_id = e.execution_id)))) AS cpu_ms
  FROM executions e WHERE e.tenant = ?1 AND e.accepted_at >= ?2 AND e.accepted_at < ?3 AND (?4 IS NULL OR e.tool = ?4)
  GROUP BY day, e.tool, e.status, edge`;

export async function readTenantUsage(db: D1Database, tenant: string, w: UsageWindow): Promise<TenantUsage> {
  const [groups, oldest] = await Promise.all([
    db
      .prepare(GROUPS)
      .bind(tenant, Date.parse(w.from), Date.parse(w.to) + DAY_MS, w.tool ?? null)
      .all<Group>(),
    db.prepare("SELECT MIN(ended_at) AS t FROM executions").first<{ t: number | null }>(),
  ]);
  const byKey = new Map<string, UsageSums & { day: string; tool: string }>();
  for (const g of groups.results) {
    const key = `${g.day} ${g.tool}`;
    const entry = byKey.get(key) ?? { day: g.day, tool: g.tool, ...emptySums() };
    byKey.set(key, entry);
    add(entry, g.status, g.edge ? g.n : 0, g.edge ? 0 : g.n, g.cpu_ms);
  }
  const days = [...byKey.values()].sort((a, b) => a.day.localeCompare(b.day) || a.tool.localeCompare(b.tool));
  const totals = emptySums();
  for (const d of days) {
    d.estimated_cost_usd = estimateCost(PRICES, d.paths.edge, d.paths.object, d.cpu_ms ?? 0);
    for (const s of ENDED) totals.executions[s] += d.executions[s];
    add(totals, null, d.paths.edge, d.paths.object, d.cpu_ms);
    totals.estimated_cost_usd = roundUsd(totals.estimated_cost_usd + d.estimated_cost_usd);
  }
  const t = oldest?.t;
  return {
    tenant,
    from: w.from,
    to: w.to,
    oldest_record_at: typeof t === "number" ? new Date(t).toISOString() : null,
    prices: PRICES,
    days,
    totals,
  };
}

function emptySums(): UsageSums {
  return {
    executions: { succeeded: 0, failed: 0, cancelled: 0, timed_out: 0, total: 0 },
    paths: { edge: 0, object: 0 },
    cpu_ms: null,
    estimated_cost_usd: 0,
  };
}

const ENDED = ["succeeded", "failed", "cancelled", "timed_out"] as const;
const isEnded = (s: string | null): s is (typeof ENDED)[number] => ENDED.some((e) => e === s);

/** Adds executions of one status (null: counted by status already) to `sums`. */
function add(sums: UsageSums, status: string | null, edge: number, object: number, cpuMs: number | null): void {
  if (isEnded(status)) sums.executions[status] += edge + object;
  sums.executions.total += edge + object;
  sums.paths.edge += edge;
  sums.paths.object += object;
  if (cpuMs !== null) sums.cpu_ms = (sums.cpu_ms ?? 0) + cpuMs;
}
