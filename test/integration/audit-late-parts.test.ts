/**
 * The parts of an execution's audit record that arrive apart from it (docs/contract.md#audit):
 * providers' CPU reports and a late intent verdict, before the record, with it or after it, and
 * redelivered (delivery is at least once). Whatever the order, the record reads whole, each
 * report once (the first of an attempt stands), the last verdict, and the metrics count each
 * execution once. Through the runtime Worker's own queue handler and D1.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { renderMetrics } from "../../src/audit/metrics.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { listAudit } from "../../src/audit/queries.ts";
import { readEdgeView, readUsage } from "../../src/audit/records.ts";
import { auditShards, tenantShard } from "../../src/audit/shards.ts";
import { registryStub } from "../../src/object-stubs.ts";
import { executionRecord } from "../fixtures/record.ts";
import { deliverAudit as deliver } from "./worker-http.ts";

type Finished = Extract<AuditMessage, { kind: "finished" }>;

/** A finished fast-path execution of a tool of its own (so its metric is this test's alone). */
function finished(tenant: string, tool: string): Finished {
  const t = Date.now() - 5_000;
  const record = executionRecord("succeeded", { tenant, tool, accepted_at: t - 30, ended_at: t, attempts: [] });
  return {
    kind: "finished",
    record: {
      ...auditEntryOf(record),
      approval: { decision: "approved", approver: "ops", reason: null, at: new Date(t).toISOString() },
    },
    view: JSON.stringify({ execution_id: record.execution_id, status: "succeeded" }),
    retention_ms: 86_400_000,
  };
}

const usage = (id: string, attempt: number, cpu_ms: number): AuditMessage => ({
  kind: "usage",
  reports: [{ execution_id: id, attempt, cpu_ms }],
  expires_at: Date.now() + 86_400_000,
});

const verdict = (id: string, reason: string): AuditMessage => ({
  kind: "intent",
  execution_id: id,
  decision: { verdict: "aligned", mode: "async", reason },
});

async function countedFor(tool: string): Promise<number> {
  const text = await renderMetrics(auditShards(env), await registryStub(env).snapshot(), Date.now());
  const count = text
    .split("\n")
    .find((l) => l.startsWith(`tool_runtime_execution_duration_seconds_count{tool="${tool}"`));
  const total = text
    .split("\n")
    .filter((l) => l.startsWith(`tool_runtime_executions_total{tool="${tool}"`))
    .reduce((n, l) => n + Number(l.split(" ").at(-1)), 0);
  expect(Number(count?.split(" ").at(-1) ?? 0)).toBe(total);
  return total;
}

describe("an execution's audit parts that arrive apart from its record", () => {
  it("counts a redelivered batch's records once and keeps what arrived with them", async () => {
    const tenant = `late-${crypto.randomUUID()}`;
    const tool = `t${crypto.randomUUID().slice(0, 8)}.echo`;
    const records = [finished(tenant, tool), finished(tenant, tool)];
    const [a, b] = records.map((r) => r.record.execution_id);
    const batch = [...records, usage(a, 1, 3)];
    await deliver(batch);
    expect(await countedFor(tool)).toBe(2);
    // The same batch again, now with a report that was not in it: nothing counted twice, the report kept.
    await deliver([...batch, usage(b, 1, 4), usage(a, 1, 99)]);
    expect(await countedFor(tool)).toBe(2);
    expect(await readUsage(tenantShard(env, tenant), a)).toEqual([{ attempt: 1, cpu_ms: 3 }]);
    expect(await readUsage(tenantShard(env, tenant), b)).toEqual([{ attempt: 1, cpu_ms: 4 }]);
    const { records: listed } = await listAudit(env, { tenant, limit: 10 });
    expect(listed.map((r) => r.execution_id).sort()).toEqual([a, b].sort());
    expect(listed.every((r) => r.approval?.approver === "ops")).toBe(true);
    const view = await readEdgeView(env, { tenant, agent: null }, a, 0, 0);
    expect(view).toMatchObject({ execution_id: a, status: "succeeded", execution: { resources: { cpu_ms: 3 } } });
  });

  it("reads a CPU report and a verdict that arrived before the record, with it, and after it", async () => {
    const tenant = `late-${crypto.randomUUID()}`;
    const record = finished(tenant, "math.sum");
    const id = record.record.execution_id;
    await deliver([usage(id, 1, 1), verdict(id, "before the record")]);
    await deliver([record, usage(id, 2, 2)]);
    await deliver([usage(id, 3, 3), usage(id, 1, 100)]);
    expect(await readUsage(tenantShard(env, tenant), id)).toEqual([
      { attempt: 1, cpu_ms: 1 },
      { attempt: 2, cpu_ms: 2 },
      { attempt: 3, cpu_ms: 3 },
    ]);
    const audit = async () => (await listAudit(env, { tenant, limit: 10 })).records[0];
    expect((await audit()).capability.level2).toMatchObject({ reason: "before the record" });
    expect((await audit()).resources).toMatchObject({ cpu_ms: 6, cpu_report: "measured" });
    // The last verdict stands.
    await deliver([verdict(id, "after the record")]);
    expect((await audit()).capability.level2).toMatchObject({ reason: "after the record" });
  });
});
