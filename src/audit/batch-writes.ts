/**
 * The writes for one delivery of audit messages, as the statements of one transaction, made to
 * write as few D1 rows as they can (D1 bills every row and index entry a write touches;
 * docs/scale.md#cost):
 *  - an execution's record is one row of `executions`, deduplicated by its primary key
 *    (`INSERT OR IGNORE`), and carries what arrives with it: the fast path's view, the approval,
 *    and the providers' CPU reports of the same delivery;
 *  - what arrives later for a recorded execution (a CPU report, a late intent verdict) updates
 *    that row; what arrives before its record is kept in the table of its own kind (`usage`,
 *    `intents`), which the readers add;
 *  - the metric aggregates are one upsert per (tool, provider, status, error code, latency
 *    bucket) per delivery, counted from exactly the rows this delivery inserted: each is tagged
 *    with the delivery's id (`batch`) and found again by its primary key, so a redelivered
 *    record, already there, is never counted twice.
 */
import type { AttemptUsage } from "../execution/usage.ts";
import type { AuditEntry, AuditMessage } from "./messages.ts";
import { LATENCY_BUCKETS_S } from "./schema.ts";

type Finished = Extract<AuditMessage, { kind: "finished" }>;

/** The histogram bounds as /metrics prints them, the `le` of an exec_stats row ('+Inf' above the last). */
const BOUNDS_JSON = JSON.stringify(LATENCY_BUCKETS_S.map(String));

/** The statements that write `messages`, delivered together, their new records tagged with `tag`. */
export function writesFor(
  db: D1Database,
  messages: readonly AuditMessage[],
  tag: string,
  retentionMs: number,
): D1PreparedStatement[] {
  const finished = new Map<string, Finished>();
  const usage = new Map<string, { reports: Map<number, AttemptUsage>; expires_at: number }>();
  const rest: AuditMessage[] = [];
  for (const m of messages) {
    if (m.kind === "finished") {
      if (!finished.has(m.record.execution_id)) finished.set(m.record.execution_id, m);
    } else if (m.kind === "usage") {
      for (const r of m.reports) {
        const mine = usage.get(r.execution_id) ?? { reports: new Map(), expires_at: m.expires_at };
        usage.set(r.execution_id, mine);
        // The first report of an attempt stands (delivery is at least once).
        if (!mine.reports.has(r.attempt)) mine.reports.set(r.attempt, { attempt: r.attempt, cpu_ms: r.cpu_ms });
      }
    } else rest.push(m);
  }
  const reportsOf = (id: string) => [...(usage.get(id)?.reports.values() ?? [])].sort((a, b) => a.attempt - b.attempt);
  return [
    ...[...finished.values()].flatMap((m) => recordInsert(db, m, reportsOf(m.record.execution_id), tag)),
    ...[...usage].flatMap(([id, u]) => usageWrites(db, id, reportsOf(id), u.expires_at, finished.has(id), tag)),
    ...rest.flatMap((m) => otherWrites(db, m, Date.now() + retentionMs)),
    ...(finished.size > 0 ? [aggregate(db, [...finished.keys()], tag)] : []),
  ];
}

/** The record's row, with its view, approval and this delivery's CPU reports. */
function recordInsert(db: D1Database, m: Finished, reports: AttemptUsage[], tag: string): D1PreparedStatement {
  const r: AuditEntry = m.record;
  return db
    .prepare(
      `INSERT OR IGNORE INTO executions (execution_id, tenant, agent, project, face, tool, version, provider, mode, status, error_code,
         accepted_at, ended_at, latency_ms, params_hash, attempts, capability, correlation_id, trace_id, expires_at, batch,
         view_json, usage_json, approval_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      r.ended_at + m.retention_ms,
      tag,
      m.view ?? null,
      reports.length > 0 ? JSON.stringify(reports) : null,
      r.approval ? JSON.stringify(r.approval) : null,
    );
}

/**
 * CPU reports for one execution. Its row gains the attempts it lacks (one row written, none when
 * it has them all). A row this delivery inserted has them already (`batch` is this delivery's),
 * so the update skips it; when there is no row yet, the reports wait in `usage`.
 */
function usageWrites(
  db: D1Database,
  id: string,
  reports: AttemptUsage[],
  expiresAt: number,
  recordedNow: boolean,
  tag: string,
): D1PreparedStatement[] {
  const json = JSON.stringify(reports);
  const lacking = `SELECT n.value FROM json_each(?1) n WHERE json_extract(n.value, '$.attempt') NOT IN
      (SELECT json_extract(o.value, '$.attempt') FROM json_each(COALESCE(executions.usage_json, '[]')) o)`;
  const update = db
    .prepare(
      `UPDATE executions SET usage_json = (SELECT json_group_array(json(value)) FROM
         (SELECT value FROM json_each(COALESCE(executions.usage_json, '[]')) UNION ALL ${lacking}))
       WHERE execution_id = ?2 AND batch IS NOT ?3 AND EXISTS (${lacking})`,
    )
    .bind(json, id, tag);
  if (recordedNow) return [update];
  return [
    update,
    ...reports.map((r) =>
      db
        .prepare(
          `INSERT OR IGNORE INTO usage (execution_id, attempt, cpu_ms, expires_at)
           SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (SELECT 1 FROM executions WHERE execution_id = ?1)`,
        )
        .bind(id, r.attempt, r.cpu_ms, expiresAt),
    ),
  ];
}

/** The writes of the messages that are not an execution's record or CPU report; `expiresAt`: when an early verdict leaves. */
function otherWrites(db: D1Database, m: AuditMessage, expiresAt: number): D1PreparedStatement[] {
  switch (m.kind) {
    case "intent": {
      // The last verdict stands: on the record's row, or in `intents` while the record is not there yet.
      const decision = JSON.stringify(m.decision);
      return [
        db.prepare("UPDATE executions SET intent_json = ?1 WHERE execution_id = ?2").bind(decision, m.execution_id),
        db
          .prepare(
            `INSERT OR REPLACE INTO intents (execution_id, decision, expires_at)
             SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM executions WHERE execution_id = ?1)`,
          )
          .bind(m.execution_id, decision, expiresAt),
      ];
    }
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

/**
 * The metric aggregates, from exactly the rows this delivery inserted: the delivery's records,
 * found by their primary key, that carry its tag. One upsert per key, however many records.
 */
function aggregate(db: D1Database, ids: string[], tag: string): D1PreparedStatement {
  return db
    .prepare(
      `INSERT INTO exec_stats (tool, provider, status, error_code, le, n, sum_ms)
       SELECT e.tool, e.provider, e.status, e.error_code,
         COALESCE((SELECT b.value FROM json_each(?1) b WHERE e.latency_ms / 1000.0 <= CAST(b.value AS REAL)
                   ORDER BY CAST(b.value AS REAL) LIMIT 1), '+Inf') AS le,
         COUNT(*), SUM(e.latency_ms)
       FROM executions e WHERE e.execution_id IN (SELECT value FROM json_each(?2)) AND e.batch = ?3
       GROUP BY e.tool, e.provider, e.status, e.error_code, le
       ON CONFLICT (tool, provider, status, error_code, le) DO UPDATE SET n = n + excluded.n, sum_ms = sum_ms + excluded.sum_ms`,
    )
    .bind(BOUNDS_JSON, JSON.stringify(ids), tag);
}
