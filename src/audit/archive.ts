/**
 * The audit archive (docs/contract.md#audit): every execution record the consumer writes to D1
 * is also written to R2, where it stays for as long as the operator keeps the bucket — D1 holds
 * only the retention window (EXECUTION_RETENTION_MS, and at most AUDIT_MAX_EXECUTIONS rows).
 *
 * Shape: one NDJSON object per consumer delivery per tenant per hour (of `ended_at`, UTC),
 *
 *   audit/<tenant>/<yyyy>/<mm>/<dd>/<hh>/<delivery>.ndjson
 *
 * one line per record, as the execution sent it when it ended (times as ISO 8601, like
 * `GET /v1/audit`; CPU reports and late intent verdicts that arrive afterwards are in D1 only).
 * R2 objects cannot be appended to, so a tenant-hour is a prefix, not an object: list it.
 *
 * Exactly once. The lines of an object are the records this delivery *inserted* into D1 (those
 * whose row carries the delivery's tag, found by primary key), chosen in SQL inside the same
 * transaction as the inserts and stored there as a row of `archive_outbox`. A record is inserted
 * once (`INSERT OR IGNORE` on its id), so it is in exactly one outbox row, under one key; a
 * redelivered batch inserts nothing new for the records already there, so it adds no line. After
 * the transaction the rows are put to R2 and deleted; a put that fails (or a consumer that dies
 * first) leaves its row, and a later delivery puts it again under the same key with the same
 * bytes, so a retry overwrites, never duplicates. Costs one D1 row written and one deleted per
 * object, against ~13 rows per execution (docs/scale.md#cost).
 *
 * Without an AUDIT_ARCHIVE binding archiving is off: nothing is written to the outbox, and
 * `GET /v1/audit` says so.
 */
import type { AuditEntry, AuditMessage } from "./messages.ts";

/** Every key starts with this. */
export const ARCHIVE_PREFIX = "audit/";
/** The binding's name in wrangler.jsonc. */
export const ARCHIVE_BINDING = "AUDIT_ARCHIVE";
/** The keys' shape, as `GET /v1/audit` tells it. */
export const ARCHIVE_KEYS = `${ARCHIVE_PREFIX}{tenant}/{yyyy}/{mm}/{dd}/{hh}/{delivery}.ndjson`;
/** An outbox row older than this is taken as left behind by a failed put, and put by the next delivery. */
const LEFT_BEHIND_MS = 60_000;
/** Left-behind objects put per delivery. */
const RETRIES_PER_DELIVERY = 10;

export interface ArchiveObject {
  key: string;
  body: string;
}

/** Where a tenant's records are archived (URI-encoded, so that a tenant's name is one key segment). */
export const tenantPrefix = (tenant: string) => `${ARCHIVE_PREFIX}${encodeURIComponent(tenant)}/`;

/** A record's line in the archive: the execution's record as it was sent, times as ISO 8601. */
export function archiveLine(r: AuditEntry): string {
  return JSON.stringify({
    ...r,
    approval: r.approval ?? null,
    accepted_at: new Date(r.accepted_at).toISOString(),
    ended_at: new Date(r.ended_at).toISOString(),
  });
}

/** The prefix of the object a record goes in, up to its delivery: its tenant and the hour it ended. */
function hourPrefix(r: AuditEntry): string {
  const t = new Date(r.ended_at).toISOString(); // yyyy-mm-ddThh:…
  return `${tenantPrefix(r.tenant)}${t.slice(0, 4)}/${t.slice(5, 7)}/${t.slice(8, 10)}/${t.slice(11, 13)}/`;
}

/**
 * The statement that puts this delivery's new records in the outbox (run after their inserts,
 * in the same transaction), returning the objects to put; none without a bucket or records.
 */
export function archiveWrites(
  db: D1Database,
  bucket: R2Bucket | undefined,
  messages: readonly AuditMessage[],
  tag: string,
  now: number,
): D1PreparedStatement[] {
  if (!bucket) return [];
  const seen = new Set<string>();
  const lines: { id: string; prefix: string; line: string }[] = [];
  for (const m of messages) {
    if (m.kind !== "finished" || seen.has(m.record.execution_id)) continue;
    seen.add(m.record.execution_id);
    lines.push({ id: m.record.execution_id, prefix: hourPrefix(m.record), line: archiveLine(m.record) });
  }
  if (lines.length === 0) return [];
  // In the order they ended, so an object reads as a log.
  const order = new Map(messages.flatMap((m) => (m.kind === "finished" ? [[m.record.execution_id, m]] : [])));
  lines.sort((a, b) => order.get(a.id)!.record.ended_at - order.get(b.id)!.record.ended_at || a.id.localeCompare(b.id));
  return [
    db
      .prepare(
        `INSERT INTO archive_outbox (key, body, created_at)
         SELECT prefix || ?2 || '.ndjson', group_concat(line, char(10) ORDER BY n) || char(10), ?3 FROM
           (SELECT l.key AS n, json_extract(l.value, '$.prefix') AS prefix, json_extract(l.value, '$.line') AS line
            FROM json_each(?1) l JOIN executions e ON e.execution_id = json_extract(l.value, '$.id') AND e.batch = ?2)
         GROUP BY prefix
         RETURNING key, body`,
      )
      .bind(JSON.stringify(lines), tag, now),
  ];
}

/**
 * Puts the objects to R2 and takes them out of the outbox. A failed put is logged and its row
 * stays, for a later delivery to put again (`leftBehind`); nothing is thrown, since the
 * records are safely in D1 and the outbox.
 */
export async function putArchived(db: D1Database, bucket: R2Bucket, objects: ArchiveObject[]): Promise<void> {
  const put: string[] = [];
  for (const o of objects) {
    try {
      await bucket.put(o.key, o.body, { httpMetadata: { contentType: "application/x-ndjson" } });
      put.push(o.key);
    } catch (err) {
      console.error(JSON.stringify({ msg: "audit archive put failed; retried later", key: o.key, error: String(err) }));
    }
  }
  if (put.length === 0) return;
  try {
    // As one batch, like the consumer's other writes (D1 counts each deleted row as written).
    await db.batch([
      db.prepare("DELETE FROM archive_outbox WHERE key IN (SELECT value FROM json_each(?))").bind(JSON.stringify(put)),
    ]);
  } catch (err) {
    // The row is put again later, under the same key with the same bytes: no harm but the cost.
    console.error(JSON.stringify({ msg: "audit archive outbox not cleared", keys: put, error: String(err) }));
  }
}

/**
 * What earlier deliveries left in the outbox (a failed put, a consumer that died), to put again:
 * a statement of the delivery's own transaction, so the retry costs no request of its own.
 */
export function leftBehind(db: D1Database, now: number): D1PreparedStatement {
  return db
    .prepare(
      `SELECT key, body FROM archive_outbox WHERE created_at <= ? ORDER BY created_at LIMIT ${RETRIES_PER_DELIVERY}`,
    )
    .bind(now - LEFT_BEHIND_MS);
}

/** The objects an outbox statement returned (`archiveWrites`), from its result. */
export const archivedObjects = (result: D1Result | undefined): ArchiveObject[] =>
  (result?.results ?? []) as ArchiveObject[];

/** What `GET /v1/audit` says of the archive: where a scope's records are, or that there is none. */
export function archiveDescription(bucket: R2Bucket | undefined, tenant: string | undefined) {
  return bucket
    ? {
        enabled: true,
        binding: ARCHIVE_BINDING,
        prefix: tenant === undefined ? ARCHIVE_PREFIX : tenantPrefix(tenant),
        keys: ARCHIVE_KEYS,
      }
    : { enabled: false, binding: null, prefix: null, keys: null };
}
