/**
 * The audit store's size bound per shard (docs/scale.md 9.6): the newest AUDIT_MAX_EXECUTIONS
 * executions' rows are kept, and no more than fit in AUDIT_MAX_BYTES. A D1 database refuses
 * every write past 10 GB, and then every delivery fails, the queue retries and the dead letter
 * queue fills: the bound must hold before that, whatever the size of the records.
 *
 * D1 tells neither the bytes its rows use nor its free pages (`meta.size_after` is the file,
 * which deletes do not shrink; `PRAGMA freelist_count` is not among D1's), so the bytes are
 * estimated from what a delivery writes: each record's bytes as its message carries them,
 * times what SQLite adds (row and page overhead, the key and two indexes, the CPU report),
 * calibrated against the bytes D1 measures (`npm run simulate:audit`, sizes after minus before).
 * A delivery's records give its estimate; the bound in executions is the smaller of the two.
 */
import type { AuditMessage } from "./messages.ts";
import { MAX_MESSAGE_BYTES } from "./outbox.ts";

/**
 * What a stored execution takes against the bytes of its record and view as JSON:
 * `stored ≈ FIXED + FACTOR × message bytes`. Fitted to `npm run simulate:audit -- --rates 100
 * --shards 1 --view-bytes V` (records of ~733 B): V = 600, 4,000, 12,000 measured 1,614, 4,850
 * and 13,042 B per execution; this gives 1,636, 5,070 and 13,150, never less (docs/scale.md 9.6).
 */
export const STORED_FIXED_BYTES = 290;
export const STORED_FACTOR = 1.01;

/**
 * What one finished message's execution will take in the store, in bytes (estimated). A view
 * too large for a message (`view_stored`: the edge wrote it) counts as at least that large.
 */
export function storedBytes(message: Extract<AuditMessage, { kind: "finished" }>): number {
  const view = message.view_stored ? MAX_MESSAGE_BYTES : (message.view?.length ?? 0);
  const carried = JSON.stringify(message.record).length + view;
  return Math.ceil(STORED_FIXED_BYTES + STORED_FACTOR * carried);
}

/**
 * How many executions a shard keeps after a delivery: AUDIT_MAX_EXECUTIONS, or fewer when that
 * many records like this delivery's would pass AUDIT_MAX_BYTES. A delivery without records
 * estimates nothing and keeps the count bound only.
 */
export function executionsKept(
  messages: readonly AuditMessage[],
  bound: { auditMaxExecutions: number; auditMaxBytes: number },
): number {
  let bytes = 0;
  let records = 0;
  for (const m of messages)
    if (m.kind === "finished") {
      bytes += storedBytes(m);
      records++;
    }
  if (records === 0) return bound.auditMaxExecutions;
  return Math.max(1, Math.min(bound.auditMaxExecutions, Math.floor(bound.auditMaxBytes / (bytes / records))));
}
