-- The audit database (binding AUDIT_DB, database tool-runtime-audit): the schema the runtime
-- created on each isolate's first use before the schema became migrations, statement for
-- statement, so a database made either way is the same.
--
-- Every statement keeps IF NOT EXISTS: a database made by an older version already holds these
-- tables and its rows, and applying this migration to it must succeed, change nothing and
-- record 0001 as applied (test/integration/audit-upgrade.test.ts).
--
-- Applied migrations are never edited: a change is a new numbered file (docs/architecture.md,
-- "The audit schema is migrations").

CREATE TABLE IF NOT EXISTS executions (
     execution_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent TEXT NOT NULL, project TEXT, face TEXT NOT NULL,
     tool TEXT NOT NULL, version TEXT NOT NULL, provider TEXT NOT NULL, mode TEXT NOT NULL, status TEXT NOT NULL,
     error_code TEXT NOT NULL, accepted_at INTEGER NOT NULL, ended_at INTEGER NOT NULL, latency_ms INTEGER NOT NULL,
     params_hash TEXT NOT NULL, attempts TEXT NOT NULL, capability TEXT NOT NULL, correlation_id TEXT, trace_id TEXT,
     expires_at INTEGER NOT NULL, batch TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS executions_by_tenant ON executions (tenant, accepted_at DESC, execution_id DESC);
CREATE INDEX IF NOT EXISTS executions_by_end ON executions (ended_at DESC, execution_id DESC);
CREATE INDEX IF NOT EXISTS executions_by_batch ON executions (batch);
CREATE INDEX IF NOT EXISTS executions_by_expiry ON executions (expires_at);
CREATE TABLE IF NOT EXISTS views (execution_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, view TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS views_by_expiry ON views (expires_at);
CREATE TABLE IF NOT EXISTS intents (execution_id TEXT PRIMARY KEY, decision TEXT NOT NULL);
-- Provider invocations' CPU reports, per attempt (src/audit/tail.ts); cpu_ms NULL: not measured.
CREATE TABLE IF NOT EXISTS usage (execution_id TEXT NOT NULL, attempt INTEGER NOT NULL, cpu_ms REAL, expires_at INTEGER NOT NULL, PRIMARY KEY (execution_id, attempt));
CREATE INDEX IF NOT EXISTS usage_by_expiry ON usage (expires_at);
-- A person's decision on a call that needed approval.
CREATE TABLE IF NOT EXISTS approvals (execution_id TEXT PRIMARY KEY, approval TEXT NOT NULL);
-- The aggregates /metrics reads, kept by the consumer in the same transaction as their rows.
CREATE TABLE IF NOT EXISTS exec_counts (tool TEXT NOT NULL, provider TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tool, provider, status, error_code));
CREATE TABLE IF NOT EXISTS latency_buckets (tool TEXT NOT NULL, provider TEXT NOT NULL, le REAL NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tool, provider, le));
CREATE TABLE IF NOT EXISTS latency_totals (tool TEXT NOT NULL, provider TEXT NOT NULL, count INTEGER NOT NULL, sum_s REAL NOT NULL, PRIMARY KEY (tool, provider));
CREATE TABLE IF NOT EXISTS refusals (tenant TEXT NOT NULL, tool TEXT NOT NULL, reason TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (tenant, tool, reason));
-- Refusal-count messages already counted (a redelivery is counted once).
CREATE TABLE IF NOT EXISTS processed_messages (id TEXT PRIMARY KEY);
-- Operators' drills (src/routes/admin.ts): armed, and how many batches remain.
CREATE TABLE IF NOT EXISTS drills (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS drill_counts (name TEXT PRIMARY KEY, remaining INTEGER NOT NULL);
-- What came back through the dead letter queue (src/audit/dead-letters.ts), by kind and outcome.
CREATE TABLE IF NOT EXISTS dead_letters (kind TEXT NOT NULL, outcome TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (kind, outcome));
-- Rows the size cap (AUDIT_MAX_EXECUTIONS) deleted before their retention was over, per table (src/audit/consumer.ts).
CREATE TABLE IF NOT EXISTS audit_trimmed (tbl TEXT PRIMARY KEY, n INTEGER NOT NULL);
-- What the drills did: how often each fired, and the last batch it failed (GET /v1/admin/audit/drills).
CREATE TABLE IF NOT EXISTS drills_fired (name TEXT PRIMARY KEY, fired INTEGER NOT NULL, last_batch_size INTEGER NOT NULL, last_written INTEGER NOT NULL);
