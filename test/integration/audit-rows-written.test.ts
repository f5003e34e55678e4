/**
 * What the audit costs per execution in D1 rows written (docs/scale.md#cost), counted by D1
 * itself (`meta.rows_written` of every statement the consumer runs, index entries included),
 * through the runtime Worker's own queue handler. Each path's messages arrive as the queue
 * hands them over: an execution's record and its providers' CPU report in the same batch, or
 * the report in a later one (the tail Worker's message can be slower than the record's).
 * The budget (src/audit/batch-writes.ts): the record's row with its key and two indexes (4), 1
 * more for a report in a later batch, and one aggregate upsert per key per batch — here every
 * execution of a batch has the same key (tool, provider, status, latency bucket); and, with the
 * archive bound (src/audit/archive.ts), its outbox row per object written and deleted — here one
 * object per batch (one tenant, one hour).
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { deliverAudit as deliver, withAuditDb } from "./worker-http.ts";
import { executionRecord } from "../fixtures/record.ts";

/** Executions per batch: a few, as under light load (the queue hands over up to 50 messages). */
const PER_BATCH = 10;
const BATCHES = 3;

/** The audit database, with what each statement wrote added up under the table it writes. */
function counted(): { e: Env; byTable: Map<string, number> } {
  const byTable = new Map<string, number>();
  const db = new Proxy(env.AUDIT_DB, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop !== "batch") return typeof value === "function" ? value.bind(target) : value;
      return async (statements: D1PreparedStatement[]) => {
        const results = await target.batch(statements);
        results.forEach((r, i) => {
          // workerd's D1PreparedStatement keeps its SQL as `statement`.
          const sql = String(Reflect.get(statements[i], "statement") ?? "");
          const table = /(?:INTO|UPDATE|FROM)\s+(\w+)/i.exec(sql)?.[1] ?? "?";
          byTable.set(table, (byTable.get(table) ?? 0) + (r.meta.rows_written ?? 0));
        });
        return results;
      };
    },
  });
  // One shard, so every row written is counted here (src/audit/shards.ts).
  return { e: withAuditDb(env, db), byTable };
}

/** One execution's messages: its record (with its view on the fast path) and its CPU report. */
function execution(tenant: string, fast: boolean): { finished: AuditMessage; usage: AuditMessage } {
  // Inside the last hour that is over, so that a batch's records are in one archive object.
  const t = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 1_800_000;
  const record = executionRecord("succeeded", {
    tenant,
    provider: "lab",
    accepted_at: t - 12,
    ended_at: t,
    attempts: [],
  });
  const id = record.execution_id;
  return {
    finished: {
      kind: "finished",
      record: auditEntryOf(record),
      ...(fast ? { view: JSON.stringify({ execution_id: id, status: "succeeded" }) } : {}),
      retention_ms: 86_400_000,
    },
    usage: { kind: "usage", reports: [{ execution_id: id, attempt: 1, cpu_ms: 1.5 }], expires_at: t + 86_400_000 },
  };
}

async function rowsPerExecution(fast: boolean, usageLater: boolean) {
  const tenant = `rows-${crypto.randomUUID()}`;
  const { e, byTable } = counted();
  for (let b = 0; b < BATCHES; b++) {
    const ex = Array.from({ length: PER_BATCH }, () => execution(tenant, fast));
    if (usageLater) {
      await deliver(
        ex.map((x) => x.finished),
        e,
      );
      await deliver(
        ex.map((x) => x.usage),
        e,
      );
    } else
      await deliver(
        ex.flatMap((x) => [x.finished, x.usage]).sort(() => Math.random() - 0.5),
        e,
      );
  }
  const n = PER_BATCH * BATCHES;
  return Object.fromEntries([...byTable].filter(([, v]) => v > 0).map(([k, v]) => [k, v / n]));
}

describe("D1 rows written per execution by the audit consumer", () => {
  it.each([
    ["the fast path, its CPU report in the same batch", true, false, 4],
    ["the fast path, its CPU report in a later batch", true, true, 5],
    ["an object path, its CPU report in the same batch", false, false, 4],
    ["an object path, its CPU report in a later batch", false, true, 5],
  ])("%s: %d rows for the record, one aggregate per batch", async (_name, fast, usageLater, record) => {
    expect(await rowsPerExecution(fast, usageLater)).toEqual({
      executions: record,
      exec_stats: 1 / PER_BATCH,
      archive_outbox: 2 / PER_BATCH,
    });
  });
});
