-- Fewer D1 rows written per execution (docs/scale.md#cost; D1 counts every index entry a write
-- touches as a row written). What an execution's record carries moves onto its own row, and the
-- metric aggregates become one table written once per key per consumer batch
-- (docs/architecture.md, "The audit store").
--
-- Rows written before this migration stay where they are and are read as before: the readers
-- take a record's view, CPU reports, approval and late intent verdict from its row or, for a
-- record written before, from `views`, `usage`, `approvals` and `intents`; /metrics adds the
-- aggregates kept until now (exec_counts, latency_buckets, latency_totals) to exec_stats.
--
-- Apply it before the code that needs it (`npm run deploy` does): a consumer older than it
-- finds a batch's rows by the index it drops, so until the new code runs each of its batches
-- reads the whole executions table.

-- The fast path's finished view (docs/contract.md#response), as JSON.
ALTER TABLE executions ADD COLUMN view_json TEXT;
-- The providers' CPU reports, a JSON array of {attempt, cpu_ms} (src/audit/tail.ts).
ALTER TABLE executions ADD COLUMN usage_json TEXT;
-- A person's decision on a call that needed approval (docs/contract.md#approvals), as JSON.
ALTER TABLE executions ADD COLUMN approval_json TEXT;
-- A read-only call's level-2 verdict that arrived after its record (docs/contract.md#capabilities).
ALTER TABLE executions ADD COLUMN intent_json TEXT;

-- A verdict that arrived before its record waits in `intents` until then, and leaves at
-- `expires_at` (a row of a record written before this migration has none: it leaves with its record).
ALTER TABLE intents ADD COLUMN expires_at INTEGER;

-- No query needs these: the consumer finds the rows a delivery inserted by their primary key,
-- and removes expired rows along executions_by_end.
DROP INDEX IF EXISTS executions_by_batch;
DROP INDEX IF EXISTS executions_by_expiry;

-- The metric aggregates, one row per tool, provider, status, error code and latency bucket:
-- `le` is the smallest histogram bound (seconds, as /metrics prints it) the latency fits under,
-- or '+Inf'; `n` executions, `sum_ms` their latencies. /metrics sums and cumulates them.
CREATE TABLE IF NOT EXISTS exec_stats (
  tool TEXT NOT NULL, provider TEXT NOT NULL, status TEXT NOT NULL, error_code TEXT NOT NULL, le TEXT NOT NULL,
  n INTEGER NOT NULL, sum_ms INTEGER NOT NULL,
  PRIMARY KEY (tool, provider, status, error_code, le)) WITHOUT ROWID;
