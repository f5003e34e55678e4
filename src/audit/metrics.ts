/**
 * `/metrics` in the Prometheus text exposition format (0.0.4). Every figure comes from
 * aggregates the audit consumer keeps in D1 (all isolates, exactly once per execution) or
 * from the registry's snapshot (breakers); a scrape reads a few small tables and touches no
 * execution object.
 *
 * No gauge of executions in flight: the index holds only finished executions (one `finished`
 * message each, nothing while one runs), and what runs now is known only per tenant (each
 * TenantObject's ledger), which a scrape would have to ask of every tenant. A gauge read from
 * the index was always 0; it was removed rather than publish a figure that is never true.
 */
import type { RegistrySnapshot } from "../registry/catalog.ts";
import { breakerView } from "../registry/provider-health.ts";
import { withStats } from "./metric-aggregates.ts";
import { LATENCY_BUCKETS_S } from "./schema.ts";

type Labels = Record<string, string>;

function escapeLabel(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

function sample(name: string, labels: Labels, value: number): string {
  const l = Object.entries(labels)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(",");
  return `${name}${l ? `{${l}}` : ""} ${Number.isInteger(value) ? value : value.toPrecision(12)}`;
}

/** An upstream tool whose listed definition differs from the approved one (docs/contract.md#upstreams). */
export interface PendingDefinitionChange {
  upstream: string;
  tool: string;
  seen_at: number;
}

export async function renderMetrics(
  shards: readonly D1Database[],
  snapshot: RegistrySnapshot,
  now: number,
  upstreamChanges: PendingDefinitionChange[] = [],
): Promise<string> {
  // What belongs to no tenant is in the home shard (src/audit/shards.ts); the executions'
  // aggregates, trims and oldest record are each shard's, summed here.
  const home = shards[0];
  const [[refusals, deadLetters], unverified, perShard] = await Promise.all([
    home.batch<Record<string, unknown>>([
      // Tenants are unbounded, so no metric is labelled by one: per-tenant counts are GET /v1/audit/refusals.
      home.prepare("SELECT tool, reason, SUM(n) AS n FROM refusals GROUP BY tool, reason ORDER BY tool, reason"),
      home.prepare("SELECT kind, outcome, n FROM dead_letters ORDER BY kind, outcome"),
    ]),
    unlessMissing(home, "SELECT effect, reason, action, n FROM intent_unverified ORDER BY effect, reason, action"),
    Promise.all(shards.map(shardAggregates)),
  ]);
  const rows = (pick: (s: ShardAggregates) => Record<string, unknown>[]) => perShard.flatMap(pick);
  const executions = withStats(
    rows((s) => s.counts),
    rows((s) => s.buckets),
    rows((s) => s.totals),
    rows((s) => s.stats),
  );
  const trimmed = summed(
    rows((s) => s.trimmed),
    ["tbl"],
  );
  const oldestEnded = perShard
    .map((s) => s.oldest)
    .filter((t): t is number => typeof t === "number")
    .reduce<number | undefined>((a, t) => (a === undefined || t < a ? t : a), undefined);
  const out: string[] = [];
  const family = (name: string, type: string, help: string) =>
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);

  family(
    "tool_runtime_executions_total",
    "counter",
    "Executions that ended, by tool, provider, status and error code.",
  );
  for (const r of executions.counts) {
    out.push(
      sample(
        "tool_runtime_executions_total",
        {
          tool: String(r.tool),
          provider: String(r.provider),
          status: String(r.status),
          error_code: String(r.error_code),
        },
        Number(r.n),
      ),
    );
  }

  family(
    "tool_runtime_execution_duration_seconds",
    "histogram",
    "Execution latency from acceptance to the end, by tool and provider.",
  );
  for (const t of executions.totals) {
    const labels = { tool: String(t.tool), provider: String(t.provider) };
    const mine = executions.buckets.get(`${t.tool}\u0000${t.provider}`) ?? new Map<number, number>();
    for (const le of LATENCY_BUCKETS_S)
      out.push(
        sample("tool_runtime_execution_duration_seconds_bucket", { ...labels, le: String(le) }, mine.get(le) ?? 0),
      );
    out.push(sample("tool_runtime_execution_duration_seconds_bucket", { ...labels, le: "+Inf" }, Number(t.count)));
    out.push(sample("tool_runtime_execution_duration_seconds_sum", labels, Number(t.sum_s)));
    out.push(sample("tool_runtime_execution_duration_seconds_count", labels, Number(t.count)));
  }

  family(
    "tool_runtime_breaker_state",
    "gauge",
    "1 when the provider's circuit breaker for the tool is in the given state.",
  );
  for (const [key, h] of Object.entries(snapshot.health).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const [provider, tool] = key.split("/");
    const state = breakerView(h.breaker, now);
    for (const s of ["closed", "open", "half_open"])
      out.push(sample("tool_runtime_breaker_state", { provider, tool, state: s }, s === state ? 1 : 0));
  }

  family(
    "tool_runtime_rate_limit_refusals_total",
    "counter",
    "Calls refused by rate or concurrency limits (no execution was created), by tool and reason; by tenant: GET /v1/audit/refusals.",
  );
  for (const r of refusals.results)
    out.push(
      sample("tool_runtime_rate_limit_refusals_total", { tool: String(r.tool), reason: String(r.reason) }, Number(r.n)),
    );

  // Level 2 when the verifier failed or was late (src/pipeline/intent.ts, VERIFIER_FAILURE_POLICY).
  family(
    "tool_runtime_intent_skipped_total",
    "counter",
    "Calls that ran without level 2 because the intent verifier failed (error) or was late (timeout), by the tool's effect.",
  );
  for (const r of unverified.results)
    if (r.action === "skip")
      out.push(
        sample(
          "tool_runtime_intent_skipped_total",
          { effect: String(r.effect), reason: String(r.reason) },
          Number(r.n),
        ),
      );
  family(
    "tool_runtime_intent_refused_total",
    "counter",
    "Calls refused because the intent verifier failed or was late and VERIFIER_FAILURE_POLICY says refuse for the tool's effect.",
  );
  for (const r of unverified.results)
    if (r.action === "refuse")
      out.push(
        sample(
          "tool_runtime_intent_refused_total",
          { effect: String(r.effect), reason: String(r.reason) },
          Number(r.n),
        ),
      );

  family(
    "tool_runtime_audit_dead_letters_total",
    "counter",
    "Audit messages that came back through the dead letter queue: written, or logged as unwritable.",
  );
  for (const r of deadLetters.results)
    out.push(
      sample(
        "tool_runtime_audit_dead_letters_total",
        { kind: String(r.kind), outcome: String(r.outcome) },
        Number(r.n),
      ),
    );
  family(
    "tool_runtime_audit_trimmed_total",
    "counter",
    "Audit rows deleted before their retention was over, to keep the database within AUDIT_MAX_EXECUTIONS and AUDIT_MAX_BYTES.",
  );
  for (const r of trimmed) out.push(sample("tool_runtime_audit_trimmed_total", { table: String(r.tbl) }, Number(r.n)));
  family(
    "tool_runtime_audit_oldest_record_timestamp_seconds",
    "gauge",
    "When the oldest execution the audit log still holds ended (Unix seconds): how far back GET /v1/audit reaches.",
  );
  if (oldestEnded !== undefined)
    out.push(sample("tool_runtime_audit_oldest_record_timestamp_seconds", {}, Math.floor(oldestEnded / 1000)));
  family(
    "tool_runtime_upstream_definition_change_pending",
    "gauge",
    "1 while an upstream MCP server lists a tool definition no operator has approved or rejected yet.",
  );
  for (const c of upstreamChanges)
    out.push(sample("tool_runtime_upstream_definition_change_pending", { upstream: c.upstream, tool: c.tool }, 1));
  family(
    "tool_runtime_upstream_definition_change_pending_since_timestamp_seconds",
    "gauge",
    "When the unapproved definition was first listed (Unix seconds).",
  );
  for (const c of upstreamChanges)
    out.push(
      sample(
        "tool_runtime_upstream_definition_change_pending_since_timestamp_seconds",
        { upstream: c.upstream, tool: c.tool },
        Math.floor(c.seen_at / 1000),
      ),
    );

  return `${out.join("\n")}\n`;
}

interface ShardAggregates {
  counts: Record<string, unknown>[];
  buckets: Record<string, unknown>[];
  totals: Record<string, unknown>[];
  stats: Record<string, unknown>[];
  trimmed: Record<string, unknown>[];
  oldest: number | null;
}

/** One shard's part: its executions' aggregates (and the tables kept before them), its trims, its oldest record. */
async function shardAggregates(db: D1Database): Promise<ShardAggregates> {
  const [counts, buckets, totals, trimmed, oldest] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT tool, provider, status, error_code, n FROM exec_counts"),
    db.prepare("SELECT tool, provider, le, n FROM latency_buckets"),
    db.prepare("SELECT tool, provider, count, sum_s FROM latency_totals"),
    db.prepare("SELECT tbl, n FROM audit_trimmed"),
    db.prepare("SELECT MIN(ended_at) AS ended_at FROM executions"),
  ]);
  const stats = await unlessMissing(db, "SELECT tool, provider, status, error_code, le, n, sum_ms FROM exec_stats");
  const t = oldest.results[0]?.ended_at;
  return {
    counts: counts.results,
    buckets: buckets.results,
    totals: totals.results,
    stats: stats.results,
    trimmed: trimmed.results,
    oldest: typeof t === "number" ? t : null,
  };
}

/**
 * A table of a later migration, read on its own: a database not migrated to it yet (readiness
 * says so) shows what it has rather than no metrics at all.
 */
function unlessMissing(db: D1Database, sql: string) {
  return db
    .prepare(sql)
    .all<Record<string, unknown>>()
    .catch((err: unknown) => {
      if (/no such table/.test(String(err))) return { results: [] as Record<string, unknown>[] };
      throw err;
    });
}

/** Rows with the same `keys` added up (their `n`), ordered by the keys. */
function summed(rows: Record<string, unknown>[], keys: string[]): Record<string, unknown>[] {
  const by = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    const id = keys.map((k) => String(r[k])).join("\u0000");
    const had = by.get(id);
    by.set(id, had ? { ...had, n: Number(had.n) + Number(r.n) } : { ...r, n: Number(r.n) });
  }
  return [...by.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}
