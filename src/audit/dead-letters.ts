/**
 * The audit queue's dead letter queue, consumed (docs/contract.md#audit: an audit that cannot be lost). A
 * batch the consumer failed `max_retries` times lands here (wrangler.jsonc); its messages are
 * taken one at a time, so one that cannot be written does not hold back the others:
 *   - written as the consumer would have written it (the writes are idempotent, so a message
 *     whose rows are already there changes nothing), and counted `written`;
 *   - or, when that fails, logged whole under a reference (`"audit dead letter not written"`,
 *     for an operator to replay by hand) and counted `unwritable`;
 *   - and when even the count cannot be written (the database is down), retried by this queue.
 * The counts are `tool_runtime_audit_dead_letters_total{kind,outcome}` in /metrics. A record
 * written here is archived as the consumer archives it (src/audit/archive.ts).
 */
import type { AuditMessage } from "./messages.ts";
import { loadConfig } from "../config.ts";
import { archivedObjects, archiveWrites, putArchived } from "./archive.ts";
import { writesFor } from "./batch-writes.ts";
import { byShard } from "./routing.ts";
import { auditShards } from "./shards.ts";

/** The dead letter queue's name (wrangler.jsonc `dead_letter_queue`); an environment names its own in AUDIT_DEAD_LETTER_QUEUE. */
export const DEAD_LETTER_QUEUE = "tool-runtime-audit-dlq";

const KINDS = new Set(["finished", "intent", "refusals"]);
/** How much of an unwritable message its log line keeps. */
const LOGGED_BYTES = 16 * 1024;

export async function consumeDeadLetters(batch: MessageBatch<AuditMessage>, env: Env): Promise<void> {
  const shards = auditShards(env);
  const db = shards[0];
  for (const message of batch.messages) {
    const m = message.body as AuditMessage | undefined;
    const kind = typeof m?.kind === "string" && KINDS.has(m.kind) ? m.kind : "unknown";
    try {
      if (kind === "unknown") throw new Error("not an audit message this runtime knows");
      const retentionMs = loadConfig(env).retentionMs;
      const tag = crypto.randomUUID();
      const bucket: R2Bucket | undefined = env.AUDIT_ARCHIVE;
      // Written where the consumer would have written it (src/audit/routing.ts), and counted at
      // home: in the home shard's own transaction when part of it goes there (always, with one
      // shard), else after the other shards' parts.
      const routed = byShard([m!], shards.length);
      for (let i = 1; i < shards.length; i++)
        if (routed[i].length > 0) await writePart(shards[i], routed[i], tag, retentionMs, bucket);
      await writePart(db, routed[0], tag, retentionMs, bucket, count(db, kind, "written"));
      message.ack();
    } catch (err) {
      const ref = crypto.randomUUID();
      const body = JSON.stringify(m) ?? String(m);
      console.error(
        JSON.stringify({
          msg: "audit dead letter not written",
          ref,
          kind,
          execution_id: executionIdOf(m),
          error: String(err),
          message: body.slice(0, LOGGED_BYTES),
          truncated: body.length > LOGGED_BYTES,
        }),
      );
      try {
        await count(db, kind, "unwritable").run();
        message.ack();
      } catch {
        message.retry();
      }
    }
  }
}

/** One shard's part of a dead letter in one transaction (with `also`), then its archive objects put. */
async function writePart(
  db: D1Database,
  part: AuditMessage[],
  tag: string,
  retentionMs: number,
  bucket: R2Bucket | undefined,
  also?: D1PreparedStatement,
): Promise<void> {
  const inserts = writesFor(db, part, tag, retentionMs);
  const archived = archiveWrites(db, bucket, part, tag, Date.now());
  const results = await db.batch([...inserts, ...archived, ...(also ? [also] : [])]);
  if (bucket && archived.length > 0) await putArchived(db, bucket, archivedObjects(results[inserts.length]));
}

function count(db: D1Database, kind: string, outcome: "written" | "unwritable"): D1PreparedStatement {
  return db
    .prepare(
      "INSERT INTO dead_letters (kind, outcome, n) VALUES (?, ?, 1) ON CONFLICT (kind, outcome) DO UPDATE SET n = n + 1",
    )
    .bind(kind, outcome);
}

function executionIdOf(m: AuditMessage | undefined): string | null {
  if (m?.kind === "finished") return m.record?.execution_id ?? null;
  if (m?.kind === "intent") return m.execution_id ?? null;
  return null;
}
