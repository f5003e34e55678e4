/**
 * The audit archive (docs/contract.md#archive) in workerd, through the runtime Worker's own queue
 * handler, its D1 and the R2 bucket bound as AUDIT_ARCHIVE (miniflare's, from wrangler.jsonc):
 * every record a delivery writes reaches the archive once, as NDJSON under its tenant and hour; a
 * redelivered batch adds nothing; what a consumer that died before its put left behind is put by
 * a later delivery; `GET /v1/audit` says how far back the store reaches and where the archive is.
 * Each test makes its own tenant; storage is this file's own (the test plugin isolates files).
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { archiveWrites } from "../../src/audit/archive.ts";
import { writesFor } from "../../src/audit/batch-writes.ts";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import type { AuditReach, AuditRecord } from "../../src/contract.ts";
import { executionRecord } from "../fixtures/record.ts";
import worker from "../../src/index.ts";
import { auditShards, tenantShard } from "../../src/audit/shards.ts";

const HOUR = 3_600_000;
/** The start of an hour two hours ago: records in it and the next one fall in two objects. */
const H0 = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };
/** The Worker as deployed without the binding: archiving off. */
const { AUDIT_ARCHIVE: _bucket, ...unbound } = env;
const withoutArchive = unbound as Env;

type Finished = Extract<AuditMessage, { kind: "finished" }>;

/** A finished execution of `tenant`, ending `offsetMs` after H0. */
function finished(tenant: string, offsetMs: number): Finished {
  const record = executionRecord("succeeded", { tenant, accepted_at: H0 + offsetMs - 5, ended_at: H0 + offsetMs });
  return { kind: "finished", record: auditEntryOf(record), retention_ms: 86_400_000 };
}

/** Delivers `messages` as one batch to the Worker's queue handler; whether the queue must deliver it again. */
async function deliver(messages: AuditMessage[], withEnv: Env = env, queue = "tool-runtime-audit"): Promise<boolean> {
  const batch = createMessageBatch(
    queue,
    messages.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<AuditMessage>, withEnv);
  return (await getQueueResult(batch, ctx)).retryBatch.retry;
}

/** Every archived object under a tenant's prefix: its key and its lines, parsed. */
async function archived(tenant: string): Promise<{ key: string; lines: Record<string, unknown>[] }[]> {
  const listed = await env.AUDIT_ARCHIVE.list({ prefix: `audit/${encodeURIComponent(tenant)}/` });
  expect(listed.truncated).toBe(false);
  const out = [];
  for (const o of listed.objects) {
    const text = await (await env.AUDIT_ARCHIVE.get(o.key))!.text();
    expect(text.endsWith("\n"), o.key).toBe(true);
    out.push({
      key: o.key,
      lines: text
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    });
  }
  return out;
}

const idsOf = (objects: { lines: Record<string, unknown>[] }[]) =>
  objects.flatMap((o) => o.lines.map((l) => l.execution_id as string)).sort();

async function listAudit(query: string, withEnv: Env = env): Promise<AuditReach & { records: AuditRecord[] }> {
  const res = await worker.fetch(
    new Request(`http://localhost/v1/audit?${query}`, { headers: admin }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    withEnv,
    createExecutionContext(),
  );
  expect(res.status).toBe(200);
  return res.json();
}

async function outboxRows(): Promise<number> {
  // Each shard keeps the outbox of its tenants' records (src/audit/shards.ts).
  let n = 0;
  for (const db of auditShards(env))
    n += (await db.prepare("SELECT COUNT(*) AS n FROM archive_outbox").first<{ n: number }>())!.n;
  return n;
}

describe("the audit archive (AUDIT_ARCHIVE)", () => {
  it("archives every record of a delivery once, as NDJSON per tenant and hour, with GET /v1/audit's fields", async () => {
    const tenant = `archive-${crypto.randomUUID()}`;
    const other = `archive-${crypto.randomUUID()}`;
    const messages = [
      finished(tenant, 1_000),
      finished(tenant, 2_000),
      finished(tenant, HOUR + 1_000),
      finished(other, 3_000),
    ];
    expect(await deliver(messages)).toBe(false);

    const objects = await archived(tenant);
    const hour = (t: number) => new Date(t).toISOString().slice(0, 13).replace(/[-T]/g, "/");
    expect(objects.map((o) => o.key.replace(/[^/]+\.ndjson$/, "")).sort()).toEqual(
      [`audit/${tenant}/${hour(H0)}/`, `audit/${tenant}/${hour(H0 + HOUR)}/`].sort(),
    );
    const mine = messages.filter((m) => m.record.tenant === tenant);
    expect(idsOf(objects)).toEqual(mine.map((m) => m.record.execution_id).sort());
    expect(idsOf(await archived(other))).toEqual([messages[3].record.execution_id]);

    // A line is the record as GET /v1/audit answers it, less what arrives later (resources).
    const { records } = await listAudit(`tenant=${tenant}`);
    expect(records).toHaveLength(3);
    for (const line of objects.flatMap((o) => o.lines)) {
      const listed = records.find((r) => r.execution_id === line.execution_id)!;
      const { resources: _r, ...expected } = listed;
      expect(line).toEqual(expected);
    }
    // In the order they ended, within an object.
    const first = objects.find((o) => o.lines.length === 2)!;
    expect(first.lines.map((l) => l.ended_at)).toEqual([
      new Date(H0 + 1_000).toISOString(),
      new Date(H0 + 2_000).toISOString(),
    ]);
    expect(await outboxRows()).toBe(0);
  });

  it("adds nothing for a redelivered batch, whole or mixed with new records", async () => {
    const tenant = `archive-${crypto.randomUUID()}`;
    const batch = [finished(tenant, 10_000), finished(tenant, 11_000), finished(tenant, 12_000)];
    expect(await deliver(batch)).toBe(false);
    const once = await archived(tenant);
    expect(once).toHaveLength(1);

    // The same messages again (the queue delivers at least once), then two of them with a new one.
    expect(await deliver(batch)).toBe(false);
    expect(await archived(tenant)).toEqual(once);
    const late = finished(tenant, 13_000);
    expect(await deliver([batch[1], late, batch[2]])).toBe(false);

    const after = await archived(tenant);
    expect(after).toHaveLength(2);
    expect(after.find((o) => o.key === once[0].key)).toEqual(once[0]);
    expect(idsOf(after)).toEqual([...batch, late].map((m) => m.record.execution_id).sort());
  });

  it("puts what a consumer that died before its put left behind, on a later delivery, once", async () => {
    const tenant = `archive-${crypto.randomUUID()}`;
    const lost = [finished(tenant, 20_000), finished(tenant, 21_000)];
    // The consumer's transaction, committed two minutes ago, and no put after it (the isolate died).
    const tag = crypto.randomUUID();
    const db = tenantShard(env, tenant);
    await db.batch([
      ...writesFor(db, lost, tag, 86_400_000),
      ...archiveWrites(db, env.AUDIT_ARCHIVE, lost, tag, Date.now() - 120_000),
    ]);
    expect(await archived(tenant)).toEqual([]);

    // The queue delivers the batch again (nothing new is written), and then another tenant's.
    expect(await deliver(lost)).toBe(false);
    expect(await deliver([finished(`archive-${crypto.randomUUID()}`, 22_000)])).toBe(false);

    const objects = await archived(tenant);
    expect(objects.map((o) => o.key)).toEqual([expect.stringMatching(new RegExp(`/${tag}\\.ndjson$`))]);
    expect(idsOf(objects)).toEqual(lost.map((m) => m.record.execution_id).sort());
    expect(await outboxRows()).toBe(0);
  });

  it("archives a record the dead letter queue writes, once", async () => {
    const tenant = `archive-${crypto.randomUUID()}`;
    const record = finished(tenant, 25_000);
    expect(await deliver([record], env, "tool-runtime-audit-dlq")).toBe(false);
    expect(await deliver([record], env, "tool-runtime-audit-dlq")).toBe(false);
    const objects = await archived(tenant);
    expect(objects).toHaveLength(1);
    expect(idsOf(objects)).toEqual([record.record.execution_id]);
  });

  it("says in GET /v1/audit how far back the store reaches and where the archive is", async () => {
    const tenant = `archive-${crypto.randomUUID()}`;
    expect(await deliver([finished(tenant, 30_000)])).toBe(false);
    const page = await listAudit(`tenant=${tenant}`);
    expect(page.records).toHaveLength(1);
    expect(page.archive).toEqual({
      enabled: true,
      binding: "AUDIT_ARCHIVE",
      prefix: `audit/${tenant}/`,
      keys: "audit/{tenant}/{yyyy}/{mm}/{dd}/{hh}/{delivery}.ndjson",
    });
    expect(page.store.retention_ms).toBe(86_400_000);
    // The oldest record the store holds, of any tenant: no later than this one.
    expect(Date.parse(page.store.oldest_record_at!)).toBeLessThanOrEqual(Date.parse(page.records[0].ended_at!));
    expect((await listAudit("limit=1")).archive.prefix).toBe("audit/");
  });

  it("is off without the binding: nothing is archived, and GET /v1/audit says so", async () => {
    const tenant = `archive-${crypto.randomUUID()}`;
    expect(await deliver([finished(tenant, 40_000)], withoutArchive)).toBe(false);
    expect(await outboxRows()).toBe(0);
    expect(await archived(tenant)).toEqual([]);
    const page = await listAudit(`tenant=${tenant}`, withoutArchive);
    expect(page.records).toHaveLength(1);
    expect(page.archive).toEqual({ enabled: false, binding: null, prefix: null, keys: null });
  });
});
