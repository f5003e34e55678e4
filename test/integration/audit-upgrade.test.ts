/**
 * Upgrading a database made before the audit schema became migrations. TEST_PREMIGRATION_DB is
 * a database no setup migrates (vitest.config.ts). The test first sees what a database that was
 * never migrated reports, then makes it as an older version did (the old DDL, a fixture), writes
 * rows as the older consumer did (its statements, a fixture), and applies the real migrations
 * (migrations/) the way wrangler does: they must succeed, keep every row, and leave the same
 * schema a database created by the migrations has (env.AUDIT_DB). The rows written before read
 * the same through the real query code: what it could read before the migrations (the index,
 * the metrics, the refusals) unchanged, and everything exactly as the same messages written by
 * today's consumer into env.AUDIT_DB read — the two databases answer alike.
 */
import { applyD1Migrations, createExecutionContext, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { renderMetrics } from "../../src/audit/metrics.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { listAudit, listExecutions } from "../../src/audit/queries.ts";
import { listRefusals } from "../../src/audit/refusal-counts.ts";
import { readEdgeView, readUsage } from "../../src/audit/records.ts";
import { auditShards, homeShard, tenantShard } from "../../src/audit/shards.ts";
import { NOT_MIGRATED } from "../../src/audit/schema.ts";
import { registryStub } from "../../src/object-stubs.ts";
import { readiness } from "../../src/routes/health.ts";
import worker from "../../src/index.ts";
import { deliverAudit as deliver, withAuditDb } from "./worker-http.ts";
import { LEGACY_AUDIT_DDL } from "../fixtures/audit-schema-before-migrations.ts";
import { writesBefore0003 } from "../fixtures/audit-writes-before-0003.ts";
import { executionRecord } from "../fixtures/record.ts";

const testEnv = env as Env & { TEST_PREMIGRATION_DB: D1Database; TEST_MIGRATIONS: D1Migration[] };
const old = testEnv.TEST_PREMIGRATION_DB;
/** The runtime with the pre-migration database as its audit database. */
const oldEnv: Env = withAuditDb(env, old);
const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };

/** A finished execution's messages: its record (with an approval and a stored view), a late intent verdict, a CPU report, a refusal count. */
function ended(tenant: string, i: number): AuditMessage[] {
  const t = Date.now() - 60_000 + i * 1000;
  const record = executionRecord(i % 2 ? "failed" : "succeeded", {
    tenant,
    accepted_at: t - 25,
    ended_at: t,
    attempts: [],
  });
  const id = record.execution_id;
  const entry = {
    ...auditEntryOf(record),
    approval: { decision: "approved" as const, approver: "ops", reason: null, at: new Date(t).toISOString() },
  };
  return [
    { kind: "finished", record: entry, view: JSON.stringify({ execution_id: id }), retention_ms: 86_400_000 },
    { kind: "intent", execution_id: id, decision: { verdict: "aligned", mode: "async", reason: "fits the task" } },
    { kind: "usage", reports: [{ execution_id: id, attempt: 1, cpu_ms: 2 + i }], expires_at: Date.now() + 86_400_000 },
    {
      kind: "refusals",
      id: `refusals-${crypto.randomUUID()}`,
      counts: [{ tenant, tool: "math.sum", reason: "rate_limited", n: 1 + i }],
    },
  ];
}

/** GET /v1/admin/readiness with `e`, from a check made now: the isolate's cached check is made stale first (one dated ahead of the clock is stale). */
async function readinessReport(e: Env): Promise<{ status: string; audit_db: { ready: boolean; reason?: string } }> {
  await readiness(e, Date.now() + 3_600_000);
  const res = await worker.fetch(
    new Request("http://localhost/v1/admin/readiness", { headers: admin }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    e,
    createExecutionContext(),
  );
  expect(res.status).toBe(200);
  return res.json();
}

/** What the query code could read for `tenant` before the migration that moved parts onto the record's row. */
async function readBefore(e: Env, tenant: string, now: number) {
  const snapshot = await registryStub(env).snapshot();
  return {
    index: await listExecutions(e, { tenant, limit: 100 }),
    metrics: await renderMetrics(auditShards(e), snapshot, now),
    refusals: await listRefusals(homeShard(e), { tenant }),
  };
}

/** Everything the query code reads for `tenant`, and the metrics, at one instant. */
async function readAll(e: Env, tenant: string, ids: string[], now: number) {
  return {
    ...(await readBefore(e, tenant, now)),
    audit: await listAudit(e, { tenant, limit: 100 }),
    usage: await Promise.all(ids.map((id) => readUsage(tenantShard(e, tenant), id))),
    views: await Promise.all(ids.map((id) => readEdgeView(e, { tenant, agent: null }, id, 0, 0))),
  };
}

/** The schema as SQLite holds it, without what D1 and wrangler keep for themselves. */
async function schemaOf(db: D1Database) {
  const rows = await db
    .prepare(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND tbl_name <> 'd1_migrations' ORDER BY name",
    )
    .all();
  return rows.results;
}

describe("the audit schema as migrations, on a database made before them", () => {
  it("reports a database never migrated as not ready, then upgrades one an older version made, keeping its rows and their reading", async () => {
    // Never migrated: readiness says so and how to fix it.
    const empty = await readinessReport(oldEnv);
    expect(empty).toMatchObject({ status: "not_ready", audit_db: { ready: false, reason: NOT_MIGRATED } });

    // Made as an older version made it, and written to as the older consumer wrote.
    await old.batch(LEGACY_AUDIT_DDL.map((sql) => old.prepare(sql)));
    const tenant = `upgrade-${crypto.randomUUID()}`;
    const messages = Array.from({ length: 6 }, (_, i) => ended(tenant, i));
    const ids = messages.map((m) => (m[0] as Extract<AuditMessage, { kind: "finished" }>).record.execution_id);
    await old.batch(writesBefore0003(old, messages.flat()));
    const now = Date.now();
    const before = await readBefore(oldEnv, tenant, now);
    expect(before.index.executions.map((r) => r.execution_id)).toEqual([...ids].reverse());
    expect(before.metrics).toContain('tool_runtime_executions_total{tool="math.sum",provider="",status="failed"');
    // Old refusal rows stay readable: by tenant through the audit query, summed per tool and reason in the metric.
    expect(before.refusals).toEqual({
      refusals: [{ tenant, tool: "math.sum", reason: "rate_limited", count: 21 }],
      truncated: false,
    });
    expect(before.metrics).toContain(`tool_runtime_rate_limit_refusals_total{tool="math.sum",reason="rate_limited"}`);
    expect(before.metrics).not.toContain("tenant=");
    // Its tables are there, but nothing says the schema was migrated: not ready until it is.
    expect((await readinessReport(oldEnv)).audit_db).toEqual({ ready: false, reason: NOT_MIGRATED });

    // The migrations apply and change no row: what was read before reads the same, and the rest
    // reads as the same messages written by today's consumer into a migrated database.
    await applyD1Migrations(old, testEnv.TEST_MIGRATIONS);
    const after = await readAll(oldEnv, tenant, ids, now);
    expect({ index: after.index, metrics: after.metrics, refusals: after.refusals }).toEqual(before);
    expect(after.audit.records.map((r) => r.execution_id)).toEqual([...ids].reverse());
    expect(after.audit.records[0]).toMatchObject({
      approval: { decision: "approved", approver: "ops" },
      capability: { level2: { verdict: "aligned" } },
    });
    expect(after.usage.map((u) => u[0]?.cpu_ms)).toEqual(ids.map((_, i) => 2 + i));
    expect(after.views.map((v) => v?.execution_id)).toEqual(ids);
    await deliver(messages.flat(), env);
    expect(await readAll(env, tenant, ids, now)).toEqual(after);
    expect((await old.prepare("SELECT name FROM d1_migrations ORDER BY id").all()).results.map((r) => r.name)).toEqual(
      testEnv.TEST_MIGRATIONS.map((m) => m.name),
    );
    // The same schema as a database the migrations created.
    expect(await schemaOf(old)).toEqual(await schemaOf(env.AUDIT_DB));
    expect((await readinessReport(oldEnv)).audit_db).toEqual({ ready: true });

    // And it takes new rows as any migrated database does.
    const more = ended(tenant, 6);
    await deliver(more, oldEnv);
    const newer = await listAudit(oldEnv, { tenant, limit: 100 });
    expect(newer.records.map((r) => r.execution_id)).toEqual([
      (more[0] as Extract<AuditMessage, { kind: "finished" }>).record.execution_id,
      ...[...ids].reverse(),
    ]);
  });
});
