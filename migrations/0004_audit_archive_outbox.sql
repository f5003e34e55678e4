-- The audit archive's outbox (src/audit/archive.ts): the R2 objects a consumer delivery made,
-- written in the same transaction as the records they hold and deleted once put, so that a
-- record reaches the archive exactly once even when the put fails or the consumer dies before
-- it. Normally empty; a row older than a minute is put again by the next delivery.
CREATE TABLE IF NOT EXISTS archive_outbox (
  key TEXT PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL) WITHOUT ROWID;
