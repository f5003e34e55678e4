/**
 * The audit queue's consumer: writes the audit log (which is also the execution index), the
 * fast path's finished views, late intent verdicts, providers' CPU reports and the metric
 * aggregates to D1, each delivery in one transaction (the statements: src/audit/batch-writes.ts).
 * Delivery is at least once, so every write is idempotent: a record is keyed by its execution
 * (`INSERT OR IGNORE`), and the aggregates are incremented from exactly the rows this delivery
 * inserted, in the same transaction. A failed batch is retried whole by the queue; rows it had
 * already written are ignored the second time and counted once. Rows past their retention leave
 * as batches arrive. With an AUDIT_ARCHIVE bucket the records this delivery inserted are also
 * archived to R2, exactly once (src/audit/archive.ts). With the store in shards
 * (src/audit/shards.ts), each shard's part of a delivery (src/audit/routing.ts) is its own
 * transaction, on its own database.
 */
import { loadConfig } from "../config.ts";
import { archivedObjects, archiveWrites, leftBehind, putArchived } from "./archive.ts";
import { writesFor } from "./batch-writes.ts";
import type { AuditMessage } from "./messages.ts";
import { byShard } from "./routing.ts";
import { auditShards } from "./shards.ts";
import { executionsKept } from "./size-bound.ts";

/** The name of the operator's drill: fail the next batch after writing half of it. */
export const FAIL_NEXT_BATCH = "fail_next_audit_batch";
/** The operator's drill that fails the next N batches before anything is written (drill_counts). */
export const FAIL_BATCHES = "fail_audit_batches";
/**
 * The same drill for one tenant (`fail_audit_batches:<tenant>`): the next N deliveries of that
 * tenant's execution records are handed back to the queue one message at a time, and the rest of
 * each batch is written as usual, so the drill leaves every other tenant's records on time.
 */
export const tenantBatchesDrill = (tenant: string) => `${FAIL_BATCHES}:${tenant}`;
/** Rows removed per batch once their retention is over, or past the database's cap. */
const PRUNE_PER_BATCH = 500;
/** The tables that grow with executions, each held to the newest rows of the size bound (src/audit/size-bound.ts). */
const CAPPED_TABLES = ["executions", "views", "usage"] as const;

export async function consumeAudit(batch: MessageBatch<AuditMessage>, env: Env): Promise<void> {
  const shards = auditShards(env);
  const home = shards[0];
  // The drills, in one request: which are armed, and the half-written-batch drill taken (unless
  // the fail-batches drill is armed: that one fails this delivery before anything is written).
  const [armedRows, taken] = await home.batch<{ name: string }>([
    home.prepare("SELECT name FROM drill_counts WHERE remaining > 0"),
    home
      .prepare(
        "DELETE FROM drills WHERE name = ?1 AND NOT EXISTS (SELECT 1 FROM drill_counts WHERE name = ?2 AND remaining > 0) RETURNING name",
      )
      .bind(FAIL_NEXT_BATCH, FAIL_BATCHES),
  ]);
  const held = await heldByDrills(home, batch, new Set(armedRows.results.map((r) => r.name)));
  const drill = taken.results.length > 0;
  const messages = batch.messages.filter((m) => !held.has(m)).map((m) => m.body);
  const upTo = drill ? Math.ceil(messages.length / 2) : messages.length;
  const config = loadConfig(env);
  const now = Date.now();
  const tag = crypto.randomUUID();
  const routed = byShard(messages.slice(0, upTo), shards.length);
  // A shard that no message of this delivery goes to, chosen at random, has its rows past their
  // retention removed and its archive outbox retried all the same: a shard whose tenants are
  // quiet is still tidied, at most one extra request per delivery.
  const tidied = Math.floor(Math.random() * shards.length);
  // Each shard's part in its own transaction, all at once. One that fails fails the delivery,
  // which the queue retries whole: what the others wrote is ignored the second time.
  const written = await Promise.allSettled(
    shards.map((db, i) =>
      routed[i].length > 0 || i === tidied || (drill && i === 0)
        ? writeShard(
            db,
            env,
            routed[i],
            tag,
            now,
            config,
            drill && i === 0 ? { size: messages.length, upTo } : undefined,
          )
        : undefined,
    ),
  );
  const failed = written.find((w): w is PromiseRejectedResult => w.status === "rejected");
  if (failed) throw failed.reason;
  if (drill)
    throw new Error(
      `audit drill: batch of ${messages.length} failed after writing ${upTo}; the queue will deliver it again`,
    );
}

/**
 * One shard's part of a delivery, in one transaction: its records and what comes with them, its
 * archive outbox, and rows past their retention or the shard's size bound. `drill`: the home
 * shard's record of the half-written-batch drill that fired.
 */
async function writeShard(
  db: D1Database,
  env: Env,
  messages: AuditMessage[],
  tag: string,
  now: number,
  config: { retentionMs: number; auditMaxExecutions: number; auditMaxBytes: number },
  drill: { size: number; upTo: number } | undefined,
): Promise<void> {
  const bucket: R2Bucket | undefined = env.AUDIT_ARCHIVE;
  // After the inserts it reads, before the cap below may trim them: this delivery's new records.
  const archived = archiveWrites(db, bucket, messages, tag, now);
  const inserts = writesFor(db, messages, tag, config.retentionMs);
  const written = [
    ...inserts,
    ...archived,
    // Along executions_by_end (no index on expires_at: one fewer row written per record). A record
    // expires a retention window after it ended, so only rows that ended a window ago are looked
    // at, oldest first: a row written under another EXECUTION_RETENTION_MS leaves once both its
    // own window and the current one are over (reads check its own: src/audit/records.ts).
    db
      .prepare(
        `DELETE FROM executions WHERE rowid IN (SELECT rowid FROM executions WHERE ended_at <= ? AND expires_at <= ? ORDER BY ended_at LIMIT ${PRUNE_PER_BATCH})`,
      )
      .bind(now - config.retentionMs, now),
    db
      .prepare(
        `DELETE FROM views WHERE rowid IN (SELECT rowid FROM views WHERE expires_at <= ? LIMIT ${PRUNE_PER_BATCH})`,
      )
      .bind(now),
    db
      .prepare(
        `DELETE FROM usage WHERE rowid IN (SELECT rowid FROM usage WHERE expires_at <= ? LIMIT ${PRUNE_PER_BATCH})`,
      )
      .bind(now),
  ];
  const capped = capStatements(db, executionsKept(messages, config));
  const after = [
    // A verdict that arrived before its record waits for it until `expires_at`; one written before
    // verdicts moved onto the record's row (no `expires_at`) leaves with its record. The oldest
    // rows are looked at, as many as are deleted at most, so a batch never reads the whole table.
    db
      .prepare(
        `DELETE FROM intents WHERE rowid IN (SELECT rowid FROM (SELECT rowid, execution_id, expires_at FROM intents ORDER BY rowid LIMIT ${PRUNE_PER_BATCH})
           WHERE CASE WHEN expires_at IS NULL THEN execution_id NOT IN (SELECT execution_id FROM executions) ELSE expires_at <= ? END)`,
      )
      .bind(now),
    db.prepare(
      `DELETE FROM approvals WHERE execution_id NOT IN (SELECT execution_id FROM executions) AND rowid IN (SELECT rowid FROM approvals LIMIT ${PRUNE_PER_BATCH})`,
    ),
    ...(drill
      ? [
          db
            .prepare(
              `INSERT INTO drills_fired (name, fired, last_batch_size, last_written) VALUES (?, 1, ?, ?)
               ON CONFLICT (name) DO UPDATE SET fired = fired + 1, last_batch_size = excluded.last_batch_size, last_written = excluded.last_written`,
            )
            .bind(FAIL_NEXT_BATCH, drill.size, drill.upTo),
        ]
      : []),
  ];
  // Read before this delivery's own outbox rows could qualify (they are a minute too young).
  const retries = bucket ? [leftBehind(db, now)] : [];
  const results = await db.batch([...retries, ...written, ...capped, ...after]);
  if (bucket) {
    // This delivery's objects and those left behind, put together, then cleared in one request.
    const mine = archived.length > 0 ? archivedObjects(results[retries.length + inserts.length]) : [];
    const again = archivedObjects(results[0]).filter((o) => !mine.some((m) => m.key === o.key));
    await putArchived(db, bucket, [...mine, ...again]);
  }
  await countTrimmed(
    db,
    results.slice(retries.length + written.length, retries.length + written.length + capped.length),
  );
}

/**
 * The batch drills: throws when the whole-batch drill is armed (the queue delivers the batch
 * again); otherwise hands back to the queue, one by one, the records of each tenant whose drill
 * is armed, and answers which messages it handed back.
 */
async function heldByDrills(
  db: D1Database,
  batch: MessageBatch<AuditMessage>,
  armed: Set<string>,
): Promise<Set<Message<AuditMessage>>> {
  const held = new Set<Message<AuditMessage>>();
  if (armed.size === 0) return held;
  const countDown = async (name: string) =>
    (await db
      .prepare("UPDATE drill_counts SET remaining = remaining - 1 WHERE name = ? AND remaining > 0 RETURNING remaining")
      .bind(name)
      .first()) !== null;
  if (armed.has(FAIL_BATCHES) && (await countDown(FAIL_BATCHES))) {
    throw new Error(
      `audit drill: batch of ${batch.messages.length} failed before writing anything; the queue will deliver it again`,
    );
  }
  const byTenant = new Map<string, Message<AuditMessage>[]>();
  for (const m of batch.messages) {
    if (m.body.kind !== "finished" || !armed.has(tenantBatchesDrill(m.body.record.tenant))) continue;
    byTenant.set(m.body.record.tenant, [...(byTenant.get(m.body.record.tenant) ?? []), m]);
  }
  for (const [tenant, messages] of byTenant) {
    if (!(await countDown(tenantBatchesDrill(tenant)))) continue;
    for (const m of messages) {
      m.retry();
      held.add(m);
    }
  }
  return held;
}

/**
 * The database's size bound (docs/scale.md section 9.6): one D1 database holds at most 10 GB,
 * and at ~1,340 bytes an execution a busy runtime fills it before the retention window is
 * over — after which every write fails. So each table that grows with executions keeps only
 * its newest `cap` rows: rows are numbered in the order they were written (SQLite's rowid),
 * so "older than the newest `cap`" is one comparison on the table's own key, no count. At
 * volume the window held shrinks instead of the database filling; /metrics says by how much
 * (`tool_runtime_audit_trimmed_total`, `tool_runtime_audit_oldest_record_timestamp_seconds`).
 */
function capStatements(db: D1Database, cap: number): D1PreparedStatement[] {
  return CAPPED_TABLES.map((table) =>
    db
      .prepare(
        `DELETE FROM ${table} WHERE rowid IN (SELECT rowid FROM ${table} WHERE rowid <= (SELECT MAX(rowid) FROM ${table}) - ? ORDER BY rowid LIMIT ${PRUNE_PER_BATCH})`,
      )
      .bind(cap),
  );
}

/**
 * Counts what the cap deleted before its retention was over (one more write, only when it
 * deleted any). Best effort: the batch is written by now, and a failed count must not make the
 * queue deliver it again — the log line says what the counter missed.
 */
async function countTrimmed(db: D1Database, results: D1Result[]): Promise<void> {
  const trimmed = CAPPED_TABLES.map((table, i) => ({ table, n: results[i]?.meta.changes ?? 0 })).filter((t) => t.n > 0);
  if (trimmed.length === 0) return;
  console.warn(
    JSON.stringify({
      msg: "audit records trimmed by the size bound (AUDIT_MAX_EXECUTIONS, AUDIT_MAX_BYTES) before their retention",
      trimmed,
    }),
  );
  try {
    await db.batch(
      trimmed.map((t) =>
        db
          .prepare(
            "INSERT INTO audit_trimmed (tbl, n) VALUES (?, ?) ON CONFLICT (tbl) DO UPDATE SET n = n + excluded.n",
          )
          .bind(t.table, t.n),
      ),
    );
  } catch (err) {
    console.error(JSON.stringify({ msg: "audit trim count not written", trimmed, error: String(err) }));
  }
}
