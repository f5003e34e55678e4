/**
 * The audit queue's consumer: writes the audit log (which is also the execution index), the
 * fast path's finished views, late intent verdicts, providers' CPU reports and the metric
 * aggregates to D1.
 * Delivery is at least once, so every write is idempotent: a record is keyed by its execution
 * (`INSERT OR IGNORE`), and each delivery tags the rows it inserted with a batch id; the
 * aggregates are then incremented from exactly the rows this delivery inserted, in the same
 * transaction. A failed batch is retried whole by the queue; rows it had already written are
 * ignored the second time and counted once. Rows past their retention leave as batches arrive.
 */
import { loadConfig } from "../config.ts";
import type { AuditEntry, AuditMessage } from "./messages.ts";
import { LATENCY_BUCKETS_S } from "./schema.ts";

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
/** The tables that grow with executions, each held to AUDIT_MAX_EXECUTIONS rows (the newest). */
const CAPPED_TABLES = ["executions", "views", "usage"] as const;

export async function consumeAudit(batch: MessageBatch<AuditMessage>, env: Env): Promise<void> {
  const db = env.AUDIT_DB;
  const held = await heldByDrills(db, batch);
  const drill = await db.prepare("DELETE FROM drills WHERE name = ? RETURNING name").bind(FAIL_NEXT_BATCH).first();
  const messages = batch.messages.filter((m) => !held.has(m)).map((m) => m.body);
  const upTo = drill ? Math.ceil(messages.length / 2) : messages.length;
  const cap = loadConfig(env).auditMaxExecutions;
  const tag = crypto.randomUUID();
  const now = Date.now();
  const written = [
    ...messages.slice(0, upTo).flatMap((m) => statementsFor(db, m, tag)),
    ...aggregates(db, tag),
    db
      .prepare(
        `DELETE FROM executions WHERE rowid IN (SELECT rowid FROM executions WHERE expires_at <= ? LIMIT ${PRUNE_PER_BATCH})`,
      )
      .bind(now),
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
  const capped = capStatements(db, cap);
  const after = [
    db.prepare(
      `DELETE FROM intents WHERE execution_id NOT IN (SELECT execution_id FROM executions) AND rowid IN (SELECT rowid FROM intents LIMIT ${PRUNE_PER_BATCH})`,
    ),
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
            .bind(FAIL_NEXT_BATCH, messages.length, upTo),
        ]
      : []),
  ];
  const results = await db.batch([...written, ...capped, ...after]);
  await countTrimmed(db, results.slice(written.length, written.length + capped.length));
  if (drill)
    throw new Error(
      `audit drill: batch of ${messages.length} failed after writing ${upTo}; the queue will deliver it again`,
    );
}

/**
 * The batch drills: throws when the whole-batch drill is armed (the queue delivers the batch
 * again); otherwise hands back to the queue, one by one, the records of each tenant whose drill
 * is armed, and answers which messages it handed back.
 */
async function heldByDrills(db: D1Database, batch: MessageBatch<AuditMessage>): Promise<Set<Message<AuditMessage>>> {
  const held = new Set<Message<AuditMessage>>();
  const armed = new Set(
    (await db.prepare("SELECT name FROM drill_counts WHERE remaining > 0").all<{ name: string }>()).results.map(
      (r) => r.name,
    ),
  );
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
    JSON.stringify({ msg: "audit records trimmed by AUDIT_MAX_EXECUTIONS before their retention", trimmed }),
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

/** The writes for one message, its rows tagged with `tag`; [] for a kind this consumer does not know. */
export function statementsFor(db: D1Database, m: AuditMessage, tag: string): D1PreparedStatement[] {
  switch (m.kind) {
    case "finished": {
      const expires = m.record.ended_at + m.retention_ms;
      return [
        recordInsert(db, m.record, expires, tag),
        ...(m.record.approval
          ? [
              db
                .prepare("INSERT OR IGNORE INTO approvals (execution_id, approval) VALUES (?, ?)")
                .bind(m.record.execution_id, JSON.stringify(m.record.approval)),
            ]
          : []),
        ...(m.view !== undefined
          ? [
              db
                .prepare("INSERT OR IGNORE INTO views (execution_id, tenant, view, expires_at) VALUES (?, ?, ?, ?)")
                .bind(m.record.execution_id, m.record.tenant, m.view, expires),
            ]
          : []),
      ];
    }
    case "usage":
      // The first report of an attempt stands (delivery is at least once).
      return m.reports.map((r) =>
        db
          .prepare("INSERT OR IGNORE INTO usage (execution_id, attempt, cpu_ms, expires_at) VALUES (?, ?, ?, ?)")
          .bind(r.execution_id, r.attempt, r.cpu_ms, m.expires_at),
      );
    case "intent":
      return [
        db
          .prepare("INSERT OR REPLACE INTO intents (execution_id, decision) VALUES (?, ?)")
          .bind(m.execution_id, JSON.stringify(m.decision)),
      ];
    case "refusals":
      return [
        db.prepare("INSERT OR IGNORE INTO processed_messages (id) VALUES (?)").bind(m.id),
        ...m.counts.map((c) =>
          db
            .prepare(
              "INSERT INTO refusals (tenant, tool, reason, n) SELECT ?, ?, ?, ? WHERE changes() = 1 ON CONFLICT (tenant, tool, reason) DO UPDATE SET n = n + excluded.n",
            )
            .bind(c.tenant, c.tool, c.reason, c.n),
        ),
      ];
    case "intent_unverified":
      return [
        db.prepare("INSERT OR IGNORE INTO processed_messages (id) VALUES (?)").bind(m.id),
        ...m.counts.map((c) =>
          db
            .prepare(
              "INSERT INTO intent_unverified (effect, reason, action, n) SELECT ?, ?, ?, ? WHERE changes() = 1 ON CONFLICT (effect, reason, action) DO UPDATE SET n = n + excluded.n",
            )
            .bind(c.effect, c.reason, c.action, c.n),
        ),
      ];
    default:
      // A message of a kind this consumer does not know (an older or newer runtime): dropped, said.
      console.warn(JSON.stringify({ msg: "unknown audit message", kind: (m as { kind?: unknown }).kind }));
      return [];
  }
}

function recordInsert(db: D1Database, r: AuditEntry, expires: number, tag: string): D1PreparedStatement {
  return db
    .prepare(
      `INSERT OR IGNORE INTO executions (execution_id, tenant, agent, project, face, tool, version, provider, mode, status, error_code,
         accepted_at, ended_at, latency_ms, params_hash, attempts, capability, correlation_id, trace_id, expires_at, batch)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .bind(
      r.execution_id,
      r.tenant,
      r.agent,
      r.project,
      r.face,
      r.tool,
      r.version,
      r.provider ?? "",
      r.mode,
      r.status,
      r.error_code ?? "",
      r.accepted_at,
      r.ended_at,
      r.latency_ms,
      r.params_hash,
      JSON.stringify(r.attempts),
      JSON.stringify(r.capability),
      r.correlation_id,
      r.trace_id,
      expires,
      tag,
    );
}

/** The metric aggregates, from exactly the rows this delivery inserted. */
export function aggregates(db: D1Database, tag: string): D1PreparedStatement[] {
  return [
    db
      .prepare(
        `INSERT INTO exec_counts (tool, provider, status, error_code, n)
         SELECT tool, provider, status, error_code, COUNT(*) FROM executions WHERE batch = ? GROUP BY tool, provider, status, error_code
         ON CONFLICT (tool, provider, status, error_code) DO UPDATE SET n = n + excluded.n`,
      )
      .bind(tag),
    db
      .prepare(
        `INSERT INTO latency_totals (tool, provider, count, sum_s)
         SELECT tool, provider, COUNT(*), SUM(latency_ms) / 1000.0 FROM executions WHERE batch = ? GROUP BY tool, provider
         ON CONFLICT (tool, provider) DO UPDATE SET count = count + excluded.count, sum_s = sum_s + excluded.sum_s`,
      )
      .bind(tag),
    db
      .prepare(
        `INSERT INTO latency_buckets (tool, provider, le, n)
         SELECT e.tool, e.provider, b.value, COUNT(*) FROM executions e, json_each(?) b WHERE e.batch = ? AND e.latency_ms / 1000.0 <= b.value
         GROUP BY e.tool, e.provider, b.value
         ON CONFLICT (tool, provider, le) DO UPDATE SET n = n + excluded.n`,
      )
      .bind(JSON.stringify(LATENCY_BUCKETS_S), tag),
  ];
}
