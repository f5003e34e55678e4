/**
 * The audit database (D1), set up idempotently on first use by each isolate, so that
 * `npm start` needs no migration step. One row per finished execution serves as the audit
 * log (AIOS §5.7 step 4) and the execution index; every aggregate the metrics read is kept up
 * to date by the consumer in the same transaction as the rows it comes from. Rows leave with
 * the retention window (`expires_at`).
 */

/** Latency histogram bounds in seconds (1 ms to 600 s, Prometheus `le`). */
export const LATENCY_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

const DDL = [
  `CREATE TABLE IF NOT EXISTS executions (
     execution_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent TEXT NOT NULL, project TEXT, face TEXT NOT NULL,
     tool TEXT NOT NULL, version TEXT NOT NULL, provider TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL,
     error_code TEXT NOT NULL, accepted_at INTEGER NOT NULL, ended_at INTEGER NOT NULL, latency_ms INTEGER NOT NULL,
     params_hash TEXT NOT NULL, attempts TEXT NOT NULL, capability TEXT NOT NULL, correlation_id TEXT, trace_id TEXT,
     expires_at INTEGER NOT NULL, batch TEXT NOT NULL)`,
  "CREATE INDEX IF NOT EXISTS executions_by_tenant ON executions (tenant, accepted_at DESC, execution_id DESC)",
  "CREATE INDEX IF NOT EXISTS executions_by_end ON executions (ended_at DESC, execution_id DESC)",
  "CREATE INDEX IF NOT EXISTS executions_by_batch ON executions (batch)",
  "CREATE INDEX IF NOT EXISTS executions_by_expiry ON executions (expires_at)",
  "CREATE TABLE IF NOT EXISTS views (execution_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, view TEXT NOT NULL, expires_at INTEGER NOT NULL)",
  "CREATE INDEX IF NOT EXISTS views_by_expiry ON views (expires_at)",
  "CREATE TABLE IF NOT EXISTS intents (execution_id TEXT PRIMARY KEY, decision TEXT NOT NULL)",
  // Provider invocations' CPU reports, per attempt (src/audit/tail.ts); cpu_ms NULL: not measured.
  "CREATE TABLE IF NOT EXISTS usage (execution_id TEXT NOT NULL, attempt INTEGER NOT NULL, cpu_ms REAL, expires_at INTEGER NOT NULL, PRIMARY KEY (execution_id, attempt))",
  "CREATE INDEX IF NOT EXISTS usage_by_expiry ON usage (expires_at)",
  // A person's decision on a call that needed approval (issue 15). A table of its own rather
  // than a column, so that an existing database needs no migration (CREATE … IF NOT EXISTS).
  "CREATE TABLE IF NOT EXISTS approvals (execution_id TEXT PRIMARY KEY, approval TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS exec_counts (tool TEXT NOT NULL, provider TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tool, provider, status, error_code))",
  "CREATE TABLE IF NOT EXISTS latency_buckets (tool TEXT NOT NULL, provider TEXT NOT NULL, le REAL NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tool, provider, le))",
  "CREATE TABLE IF NOT EXISTS latency_totals (tool TEXT NOT NULL, provider TEXT NOT NULL, count INTEGER NOT NULL, sum_s REAL NOT NULL, PRIMARY KEY (tool, provider))",
  "CREATE TABLE IF NOT EXISTS refusals (tenant TEXT NOT NULL, tool TEXT NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tenant, tool, reason))",
  "CREATE TABLE IF NOT EXISTS processed_messages (id TEXT PRIMARY KEY)",
  "CREATE TABLE IF NOT EXISTS drills (name TEXT PRIMARY KEY)",
  "CREATE TABLE IF NOT EXISTS drill_counts (name TEXT PRIMARY KEY, remaining INTEGER NOT NULL)",
  // What came back through the dead letter queue (src/audit/dead-letters.ts), by kind and outcome.
  "CREATE TABLE IF NOT EXISTS dead_letters (kind TEXT NOT NULL, outcome TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, outcome))",
  // Rows the size cap (AUDIT_MAX_EXECUTIONS) deleted before their retention was over, per table (src/audit/consumer.ts).
  "CREATE TABLE IF NOT EXISTS audit_trimmed (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL)",
  // What the drills did: how often each fired, and the last batch it failed (GET /v1/admin/audit/drills).
  "CREATE TABLE IF NOT EXISTS drills_fired (name TEXT PRIMARY KEY, fired INTEGER NOT NULL, last_batch_size INTEGER NOT NULL, last_written INTEGER NOT NULL)",
];

const ready = new WeakMap<D1Database, Promise<void>>();

export function ensureSchema(db: D1Database): Promise<void> {
  let p = ready.get(db);
  if (!p) {
    p = db.batch(DDL.map((sql) => db.prepare(sql))).then(() => undefined);
    p.catch(() => ready.delete(db));
    ready.set(db, p);
  }
  return p;
}
