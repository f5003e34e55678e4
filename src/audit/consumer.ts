/**
 * The audit queue's consumer: writes the audit log, the execution index and the metric
 * aggregates to D1. Delivery is at least once, so every write is idempotent: an audit row is
 * keyed by execution (and its acceptance time), and the aggregates are incremented in the
 * same transaction only when that row was new (`WHERE changes() = 1` chains each statement on
 * the one before). A failed batch is retried whole by the queue; what it had already written
 * is skipped the second time. Nothing is acknowledged before it is written.
 */
import type { Env } from "../env.ts";
import type { AuditMessage, AuditRecord, IndexEntry } from "./messages.ts";
import { ensureSchema, LATENCY_BUCKETS_S } from "./schema.ts";

/** The name of the operator's drill: fail the next batch after writing half of it. */
export const FAIL_NEXT_BATCH = "fail_next_audit_batch";

export async function consumeAudit(batch: MessageBatch<AuditMessage>, env: Env): Promise<void> {
  const db = env.AUDIT_DB!;
  await ensureSchema(db);
  const drill = await db.prepare("DELETE FROM drills WHERE name = ? RETURNING name").bind(FAIL_NEXT_BATCH).first();
  const messages = batch.messages.map((m) => m.body);
  const upTo = drill ? Math.ceil(messages.length / 2) : messages.length;
  const statements = messages.slice(0, upTo).flatMap((m) => statementsFor(db, m));
  if (statements.length > 0) await db.batch(statements);
  if (drill) throw new Error(`audit drill: batch of ${messages.length} failed after writing ${upTo}; the queue will deliver it again`);
}

function statementsFor(db: D1Database, m: AuditMessage): D1PreparedStatement[] {
  switch (m.kind) {
    case "started":
      return [indexUpsert(db, m.entry, 1)];
    case "finished":
      return [indexUpsert(db, m.record, 2), ...auditInsert(db, m.record)];
    case "refusals":
      return [
        db.prepare("INSERT OR IGNORE INTO processed_messages (id) VALUES (?)").bind(m.id),
        ...m.counts.map((c) =>
          db
            .prepare("INSERT INTO refusals (tenant, tool, reason, n) SELECT ?, ?, ?, ? WHERE changes() = 1 ON CONFLICT (tenant, tool, reason) DO UPDATE SET n = n + excluded.n")
            .bind(c.tenant, c.tool, c.reason, c.n),
        ),
      ];
  }
}

/** A later phase (and a later generation of a reused key's id) wins; an older one never does. */
function indexUpsert(db: D1Database, e: IndexEntry, phase: 1 | 2): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO executions (execution_id, tenant, tool, version, provider, mode, status, error_code, accepted_at, ended_at, phase)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (execution_id) DO UPDATE SET tenant = excluded.tenant, tool = excluded.tool, version = excluded.version,
         provider = excluded.provider, mode = excluded.mode, status = excluded.status, error_code = excluded.error_code,
         accepted_at = excluded.accepted_at, ended_at = excluded.ended_at, phase = excluded.phase
       WHERE excluded.phase > executions.phase`,
    )
    .bind(e.execution_id, e.tenant, e.tool, e.version, e.provider, e.mode, e.status, e.error_code, e.accepted_at, e.ended_at, e.accepted_at * 10 + phase);
}

function auditInsert(db: D1Database, r: AuditRecord): D1PreparedStatement[] {
  const provider = r.provider ?? "";
  const code = r.error_code ?? "";
  const seconds = r.latency_ms / 1000;
  const bounds = LATENCY_BUCKETS_S.filter((b) => b >= seconds);
  return [
    db
      .prepare(
        `INSERT OR IGNORE INTO audit (execution_id, accepted_at, ended_at, tenant, agent, tool, version, provider, params_hash, mode, status,
           error_code, latency_ms, attempts, capability, correlation_id, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .bind(r.execution_id, r.accepted_at, r.ended_at, r.tenant, r.agent, r.tool, r.version, provider, r.params_hash, r.mode, r.status,
        code, r.latency_ms, JSON.stringify(r.attempts), JSON.stringify(r.capability), r.correlation_id, r.trace_id),
    // Each of these runs only if the statement before it changed a row: the audit row was new.
    db
      .prepare("INSERT INTO exec_counts (tool, provider, status, error_code, n) SELECT ?, ?, ?, ?, 1 WHERE changes() = 1 ON CONFLICT (tool, provider, status, error_code) DO UPDATE SET n = n + 1")
      .bind(r.tool, provider, r.status, code),
    db
      .prepare("INSERT INTO latency_totals (tool, provider, count, sum_s) SELECT ?, ?, 1, ? WHERE changes() = 1 ON CONFLICT (tool, provider) DO UPDATE SET count = count + 1, sum_s = sum_s + excluded.sum_s")
      .bind(r.tool, provider, seconds),
    ...(bounds.length > 0
      ? [
          db
            .prepare(
              `INSERT INTO latency_buckets (tool, provider, le, n) SELECT ?, ?, value, 1 FROM json_each(?) WHERE changes() = 1
               ON CONFLICT (tool, provider, le) DO UPDATE SET n = n + 1`,
            )
            .bind(r.tool, provider, JSON.stringify(bounds)),
        ]
      : []),
  ];
}
