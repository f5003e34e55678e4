/**
 * The Worker that runs the real audit consumer for `npm run simulate:audit` (sim/audit/run.ts),
 * inside workerd next to the databases: the harness bundles this file (with
 * src/audit/consumer.ts and all it imports) and hands it to Miniflare. Running the consumer in
 * Node against Miniflare's proxies works too, but every `prepare` and `bind` is then a round trip
 * between processes: ~1 s per delivery, 20× slower.
 *
 *   POST /setup    { vars, shards, archive, migrations }: migrates every shard (AUDIT_DB,
 *                  AUDIT_DB_1, …) and makes the consumer's Env, each database counted
 *   POST /deliver  { id, bodies }: one delivery, through `consumeAudit`
 *   GET  /counts   per shard: rows written, requests, batches, size (`meta.size_after`), records
 *                  stored; R2 puts
 */
import { consumeAudit } from "../../src/audit/consumer.ts";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { counted, type Counter } from "./counted-d1.ts";

export interface Setup {
  vars: Record<string, unknown>;
  shards: number;
  archive: boolean;
  /** The SQL statements of migrations/, in order. */
  migrations: string[];
}

export interface ShardState extends Counter {
  size: number;
  stored: number;
}

let state: { env: Env; raw: D1Database[]; counters: Counter[]; puts: { n: number } } | undefined;

const bindingOf = (k: number) => (k === 0 ? "AUDIT_DB" : `AUDIT_DB_${k}`);

export default {
  async fetch(request: Request, bindings: Record<string, unknown>): Promise<Response> {
    const path = new URL(request.url).pathname;
    try {
      if (path === "/setup") {
        const setup = await request.json<Setup>();
        const raw = Array.from({ length: setup.shards }, (_, k) => bindings[bindingOf(k)] as D1Database);
        for (const db of raw) for (const q of setup.migrations) await db.prepare(q).run();
        const counters = raw.map(() => ({ rows: 0, requests: 0, batches: 0, tables: {} }));
        const bucket = bindings.AUDIT_ARCHIVE as R2Bucket;
        const puts = { n: 0 };
        const archive = {
          put: (...a: Parameters<R2Bucket["put"]>) => {
            puts.n++;
            return bucket.put(...a);
          },
        } as unknown as R2Bucket;
        const env = {
          ...setup.vars,
          ...Object.fromEntries(raw.map((db, k) => [bindingOf(k), counted(db, counters[k])])),
          ...(setup.archive ? { AUDIT_ARCHIVE: archive } : {}),
        } as unknown as Env;
        state = { env, raw, counters, puts };
        return Response.json({ ok: true });
      }
      if (!state) return new Response("not set up", { status: 409 });
      if (path === "/deliver") {
        const { id, bodies } = await request.json<{ id: number; bodies: AuditMessage[] }>();
        await consumeAudit(messageBatch(bodies, id), state.env);
        return Response.json({ ok: true });
      }
      if (path === "/counts") {
        const shards: ShardState[] = [];
        for (const [k, db] of state.raw.entries()) {
          const { meta } = await db.prepare("SELECT 1").all();
          const stored = (await db.prepare("SELECT COUNT(*) AS n FROM executions").first<{ n: number }>())!.n;
          shards.push({ ...state.counters[k], size: meta.size_after ?? NaN, stored });
        }
        return Response.json({ shards, r2Puts: state.puts.n });
      }
      return new Response("not found", { status: 404 });
    } catch (err) {
      return new Response(err instanceof Error ? (err.stack ?? err.message) : String(err), { status: 500 });
    }
  },
};

/** A queue's batch as the consumer sees it (no retries here: the harness stops if the consumer throws). */
function messageBatch(bodies: AuditMessage[], n: number): MessageBatch<AuditMessage> {
  const messages = bodies.map((body, i) => ({
    id: `sim-${n}-${i}`,
    timestamp: new Date(),
    attempts: 1,
    body,
    ack() {},
    retry() {},
  }));
  return { queue: "tool-runtime-audit", messages, ackAll() {}, retryAll() {} } as unknown as MessageBatch<AuditMessage>;
}
