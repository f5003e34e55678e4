/**
 * The audit database's size bound (docs/scale.md 9.6) in workerd, through the runtime Worker's
 * own queue handler and D1: past AUDIT_MAX_EXECUTIONS the consumer keeps the newest rows of
 * each table that grows with executions, deletes the oldest before their retention is over,
 * and says so in /metrics. The Worker runs with a cap of CAP (the shipped 6,000,000 would not
 * be reached within a test). Storage is this file's own (the test plugin isolates files), shared
 * by its tests: each reads counters as differences.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { storeView } from "../../src/audit/records.ts";
import { storedBytes } from "../../src/audit/size-bound.ts";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { executionRecord } from "../fixtures/record.ts";
import worker from "../../src/index.ts";
import { queueAudit, withAuditDb } from "./worker-http.ts";

const CAP = 5;
/** When the first execution ended; each next one a second later. */
const T0 = Math.floor(Date.now() / 1000) * 1000 - 60_000;
/** One shard: the cap holds per shard, and this file reads it in one (src/audit/shards.ts). */
const capped = withAuditDb({ ...env, AUDIT_MAX_EXECUTIONS: String(CAP) } as unknown as Env, env.AUDIT_DB);
const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };

/**
 * A fast-path execution's end: its record, and a CPU report for it. With `early`, the parts that
 * get rows of their own: a view too large for a message, which the edge stored itself
 * (`view_stored`), and a CPU report that reached the store before the record (`usage`).
 */
function ended(tenant: string, i: number, early = false): AuditMessage[] {
  const record = executionRecord("succeeded", { tenant, accepted_at: T0 + i * 1000 - 10, ended_at: T0 + i * 1000 });
  const id = record.execution_id;
  return [
    {
      kind: "finished",
      record: auditEntryOf(record),
      ...(early ? { view_stored: true } : { view: JSON.stringify({ execution_id: id }) }),
      retention_ms: 86_400_000,
    },
    { kind: "usage", reports: [{ execution_id: id, attempt: 1, cpu_ms: 1 }], expires_at: Date.now() + 86_400_000 },
  ];
}

const deliver = (messages: AuditMessage[], withEnv = capped) => queueAudit(messages, withEnv);

async function idsIn(table: string, tenant?: string): Promise<string[]> {
  const sql = tenant
    ? `SELECT execution_id FROM ${table} WHERE tenant = ? ORDER BY rowid`
    : `SELECT execution_id FROM ${table} ORDER BY rowid`;
  const stmt = env.AUDIT_DB.prepare(sql);
  return (await (tenant ? stmt.bind(tenant) : stmt).all<{ execution_id: string }>()).results.map((r) => r.execution_id);
}

/** What the cap has deleted so far, per table. */
async function trimmedSoFar(): Promise<Record<string, number>> {
  return Object.fromEntries(
    (await metric("tool_runtime_audit_trimmed_total{")).map((l) => [
      /table="(\w+)"/.exec(l)![1],
      Number(l.split(" ").at(-1)),
    ]),
  );
}

/** Executions of math.sum (what the fixture records) the aggregates have counted, over every label. */
async function executionsCounted(): Promise<number> {
  const lines = await metric('tool_runtime_executions_total{tool="math.sum"');
  return lines.reduce((n, l) => n + Number(l.split(" ").at(-1)), 0);
}

async function metric(name: string): Promise<string[]> {
  const ctx = createExecutionContext();
  const text = await (
    await worker.fetch(
      new Request("http://localhost/metrics", { headers: admin }) as Request<unknown, IncomingRequestCfProperties>,
      capped,
      ctx,
    )
  ).text();
  return text.split("\n").filter((l) => l.startsWith(name));
}

describe("the audit database's size bound (AUDIT_MAX_EXECUTIONS, AUDIT_MAX_BYTES)", () => {
  it("keeps the newest executions of each growing table, deletes the oldest before their retention, and counts them in /metrics", async () => {
    const tenant = `cap-${crypto.randomUUID()}`;
    const messages = Array.from({ length: 12 }, (_, i) => ended(tenant, i, true));
    const ids = messages.map((m) => (m[0] as Extract<AuditMessage, { kind: "finished" }>).record.execution_id);
    const before = await trimmedSoFar();
    // What the other test may have left (the tests run in any order): every row of it is
    // older than these, so the cap deletes it first.
    const held = {
      executions: (await idsIn("executions")).length,
      views: (await idsIn("views")).length,
      usage: (await idsIn("usage")).length,
    };
    const countedBefore = await executionsCounted();
    // Three batches, as the queue would deliver them, each after its views were stored and its
    // CPU reports had arrived.
    for (const part of [messages.slice(0, 4), messages.slice(4, 8), messages.slice(8)]) {
      for (const [finished, usage] of part) {
        const { record } = finished as Extract<AuditMessage, { kind: "finished" }>;
        const view = JSON.stringify({ execution_id: record.execution_id });
        await storeView(capped, { ...record, view, expires_at: record.ended_at + 86_400_000 });
        expect((await deliver([usage])).retryBatch.retry).toBe(false);
      }
      const result = await deliver(part.map(([finished]) => finished));
      expect(result.retryBatch.retry).toBe(false);
    }
    const newest = ids.slice(-CAP);
    expect(await idsIn("executions")).toEqual(newest);
    expect(await idsIn("views")).toEqual(newest);
    expect(await idsIn("usage")).toEqual(newest);

    // Deleted before their 24 h were over, and said: per table, and how far back the log reaches.
    const after = await trimmedSoFar();
    for (const table of ["executions", "views", "usage"] as const)
      expect(after[table] - (before[table] ?? 0), table).toBe(held[table] + 12 - CAP);
    expect(await metric("tool_runtime_audit_oldest_record_timestamp_seconds ")).toEqual([
      `tool_runtime_audit_oldest_record_timestamp_seconds ${(T0 + (12 - CAP) * 1000) / 1000}`,
    ]);

    // The aggregates counted every execution once, the trimmed ones too.
    expect((await executionsCounted()) - countedBefore).toBe(12);
  });

  it("deletes nothing and counts nothing while the database is within the cap", async () => {
    const roomy = withAuditDb({ ...env, AUDIT_MAX_EXECUTIONS: "1000" } as unknown as Env, env.AUDIT_DB);
    const tenant = `cap-${crypto.randomUUID()}`;
    const before = await trimmedSoFar();
    await deliver(Array.from({ length: CAP }, (_, i) => ended(tenant, i)).flat(), roomy);
    expect(await idsIn("executions", tenant)).toHaveLength(CAP);
    expect(await trimmedSoFar()).toEqual(before);
  });

  it("keeps fewer executions when their records are large (AUDIT_MAX_BYTES), and counts what it deleted", async () => {
    const tenant = `bytes-${crypto.randomUUID()}`;
    const big = (i: number): AuditMessage => {
      const record = executionRecord("succeeded", { tenant, accepted_at: T0 + i * 1000 - 10, ended_at: T0 + i * 1000 });
      return { kind: "finished", record: auditEntryOf(record), view: "x".repeat(5_000), retention_ms: 86_400_000 };
    };
    const messages = Array.from({ length: 8 }, (_, i) => big(100 + i));
    const each = storedBytes(messages[0] as Extract<AuditMessage, { kind: "finished" }>);
    // Room for three such executions in bytes, for a thousand by count.
    const bounded = withAuditDb(
      { ...env, AUDIT_MAX_EXECUTIONS: "1000", AUDIT_MAX_BYTES: String(3 * each + 10) } as unknown as Env,
      env.AUDIT_DB,
    );
    const before = await trimmedSoFar();
    const held = (await idsIn("executions")).length;
    expect((await deliver(messages, bounded)).retryBatch.retry).toBe(false);
    const ids = messages.map((m) => (m as Extract<AuditMessage, { kind: "finished" }>).record.execution_id);
    expect(await idsIn("executions")).toEqual(ids.slice(-3));
    expect((await trimmedSoFar()).executions - (before.executions ?? 0)).toBe(held + 8 - 3);
  });
});
