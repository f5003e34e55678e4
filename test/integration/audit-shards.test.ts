/**
 * The audit store in shards (src/audit/shards.ts), in workerd with two D1 databases (AUDIT_DB and
 * AUDIT_DB_1, the local stack's own configuration): through the runtime Worker's queue handler
 * and its routes, each tenant's records are written to its shard alone, with what arrives apart
 * from them (a CPU report in a later delivery, found by the tenant hash its nonce carries), and
 * every read answers as one database would: a tenant's from its shard, an operator's across
 * tenants merged page by page, /metrics summed. Readiness names a shard that is not migrated.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { writesFor } from "../../src/audit/batch-writes.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { auditShards, shardIndex, tenantHash, tenantShard } from "../../src/audit/shards.ts";
import { auditStoreReadiness } from "../../src/audit/schema.ts";
import worker from "../../src/index.ts";
import { executionRecord } from "../fixtures/record.ts";
import { deliverAudit as deliver } from "./worker-http.ts";

type Finished = Extract<AuditMessage, { kind: "finished" }>;
const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };
const shards = auditShards(env);

async function get(path: string): Promise<any> {
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, { headers: admin }) as Request<unknown, IncomingRequestCfProperties>,
    env,
    createExecutionContext(),
  );
  expect(res.status).toBe(200);
  return path === "/metrics" ? res.text() : res.json();
}

/** Tenants named `prefix-<n>`, the first `count` that land in `shard`. */
function tenantsIn(shard: number, count: number, prefix: string): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++)
    if (shardIndex(tenantHash(`${prefix}-${i}`), shards.length) === shard) found.push(`${prefix}-${i}`);
  return found;
}

function finished(tenant: string, tool: string, endedAt: number): Finished {
  const record = executionRecord("succeeded", { tenant, tool, accepted_at: endedAt - 20, ended_at: endedAt });
  return { kind: "finished", record: auditEntryOf(record), retention_ms: 86_400_000 };
}

async function idsIn(db: D1Database, tenant: string): Promise<string[]> {
  const { results } = await db
    .prepare("SELECT execution_id FROM executions WHERE tenant = ? ORDER BY execution_id")
    .bind(tenant)
    .all<{ execution_id: string }>();
  return results.map((r) => r.execution_id);
}

describe("the audit store in shards", () => {
  it("runs here with two shards, as the local stack does", () => {
    expect(shards).toHaveLength(2);
  });

  it("writes each tenant's records to its shard alone, and reads a tenant's from there", async () => {
    const prefix = `shard-${crypto.randomUUID().slice(0, 8)}`;
    const [a] = tenantsIn(0, 1, prefix);
    const [b] = tenantsIn(1, 1, prefix);
    const t = Date.now() - 60_000;
    const records = [finished(a, "math.sum", t), finished(b, "math.sum", t + 1), finished(b, "math.sum", t + 2)];
    await deliver(records);
    const ids = (tenant: string) =>
      records
        .filter((r) => r.record.tenant === tenant)
        .map((r) => r.record.execution_id)
        .sort();
    expect(await idsIn(shards[0], a)).toEqual(ids(a));
    expect(await idsIn(shards[1], a)).toEqual([]);
    expect(await idsIn(shards[1], b)).toEqual(ids(b));
    expect(await idsIn(shards[0], b)).toEqual([]);
    // A tenant's reads: its audit log and its usage, from its shard.
    const audit = await get(`/v1/audit?tenant=${b}`);
    expect(audit.records.map((r: { execution_id: string }) => r.execution_id).sort()).toEqual(ids(b));
    const usage = await get(`/v1/usage?tenant=${b}`);
    expect(usage.totals.executions.succeeded).toBe(2);
  });

  it("pages an operator's read across tenants as one database would: newest first, no record twice or missed", async () => {
    const prefix = `page-${crypto.randomUUID().slice(0, 8)}`;
    const tool = `t${crypto.randomUUID().slice(0, 8)}.echo`;
    const tenants = [...tenantsIn(0, 2, prefix), ...tenantsIn(1, 2, prefix)];
    const t = Date.now() - 30_000;
    // Interleaved in time across both shards, with two records that end at the same instant.
    const records = Array.from({ length: 11 }, (_, i) => finished(tenants[i % 4], tool, t + (i === 10 ? 9 : i) * 10));
    await deliver(records.slice(0, 6));
    await deliver(records.slice(6));
    const expected = [...records]
      .sort((x, y) =>
        x.record.ended_at !== y.record.ended_at
          ? y.record.ended_at - x.record.ended_at
          : x.record.execution_id < y.record.execution_id
            ? 1
            : -1,
      )
      .map((r) => r.record.execution_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 10; pages++) {
      const page: { records: { execution_id: string }[]; next_cursor: string | null } = await get(
        `/v1/audit?tool=${tool}&limit=3${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...page.records.map((r) => r.execution_id));
      cursor = page.next_cursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(expected);
    expect(cursor).toBeNull();
    // Both shards held some of them.
    expect((await idsIn(shards[0], tenants[0])).length).toBeGreaterThan(0);
    expect((await idsIn(shards[1], tenants[2])).length).toBeGreaterThan(0);
  });

  it("sums /metrics over the shards", async () => {
    const prefix = `metric-${crypto.randomUUID().slice(0, 8)}`;
    const tool = `t${crypto.randomUUID().slice(0, 8)}.echo`;
    const [a] = tenantsIn(0, 1, prefix);
    const [b] = tenantsIn(1, 1, prefix);
    const t = Date.now() - 10_000;
    await deliver([finished(a, tool, t), finished(b, tool, t + 1), finished(b, tool, t + 2)]);
    const text: string = await get("/metrics");
    const count = text
      .split("\n")
      .find((l) => l.startsWith(`tool_runtime_execution_duration_seconds_count{tool="${tool}"`));
    expect(Number(count?.split(" ").at(-1))).toBe(3);
  });

  it("puts a CPU report that comes in a later delivery on its record, in the shard its nonce's tenant hash names", async () => {
    const prefix = `cpu-${crypto.randomUUID().slice(0, 8)}`;
    const [b] = tenantsIn(1, 1, prefix);
    const record = finished(b, "math.sum", Date.now() - 5_000);
    const id = record.record.execution_id;
    await deliver([record]);
    await deliver([
      {
        kind: "usage",
        reports: [{ execution_id: id, attempt: 1, cpu_ms: 7, tenant_hash: tenantHash(b) }],
        expires_at: Date.now() + 86_400_000,
      },
    ]);
    const row = await tenantShard(env, b)
      .prepare("SELECT usage_json FROM executions WHERE execution_id = ?")
      .bind(id)
      .first<{ usage_json: string | null }>();
    expect(JSON.parse(row?.usage_json ?? "[]")).toEqual([{ attempt: 1, cpu_ms: 7 }]);
    // Nothing was parked in the other shard for it.
    const parked = await shards[0]
      .prepare("SELECT COUNT(*) AS n FROM usage WHERE execution_id = ?")
      .bind(id)
      .first<{ n: number }>();
    expect(parked?.n).toBe(0);
    const audit = await get(`/v1/audit?tenant=${b}`);
    expect(audit.records[0].resources).toMatchObject({ cpu_ms: 7, cpu_report: "measured" });
  });

  it("tidies a shard that deliveries pass by: its rows past their retention leave all the same", async () => {
    const prefix = `tidy-${crypto.randomUUID().slice(0, 8)}`;
    const [quiet] = tenantsIn(1, 1, prefix);
    const [busy] = tenantsIn(0, 1, prefix);
    // A record of the quiet shard whose retention was over long ago, written as a delivery would.
    const old = finished(quiet, "math.sum", Date.now() - 3 * 86_400_000);
    await shards[1].batch(writesFor(shards[1], [{ ...old, retention_ms: 1_000 }], crypto.randomUUID(), 1_000));
    expect(await idsIn(shards[1], quiet)).toEqual([old.record.execution_id]);
    // Deliveries for the busy shard only, until one tidies the quiet one (each picks one at random).
    for (let i = 0; i < 40 && (await idsIn(shards[1], quiet)).length > 0; i++)
      await deliver([finished(busy, "math.sum", Date.now() - 1_000)]);
    expect(await idsIn(shards[1], quiet)).toEqual([]);
  });

  it("is not ready while a shard lacks the schema, and says which", async () => {
    const fresh = (env as unknown as { TEST_PREMIGRATION_DB: D1Database }).TEST_PREMIGRATION_DB;
    const report = await auditStoreReadiness(auditShards({ ...env, AUDIT_DB_1: fresh } as unknown as Env));
    expect(report).toMatchObject({ ready: false, reason: expect.stringMatching(/^AUDIT_DB_1: .*AUDIT_DB_1/) });
    expect(await auditStoreReadiness(shards)).toEqual({ ready: true });
  });
});
