/**
 * The audit queue's dead letter queue in workerd, through the runtime Worker's own queue
 * handler: what can be written lands once, what cannot is logged and counted, and both counts
 * are in /metrics.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { DEAD_LETTER_QUEUE } from "../../src/audit/dead-letters.ts";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { executionRecord } from "../fixtures/record.ts";
import worker from "../../src/index.ts";

const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };

function finished(tenant: string): AuditMessage {
  const record = executionRecord("succeeded", { tenant, ended_at: Date.now(), accepted_at: Date.now() - 5 });
  return { kind: "finished", record: auditEntryOf(record), retention_ms: 86_400_000 };
}

async function deliver(messages: unknown[]) {
  const batch = createMessageBatch(
    DEAD_LETTER_QUEUE,
    messages.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: Date.now(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<AuditMessage>, env);
  return getQueueResult(batch, ctx);
}

async function deadLetterCount(kind: string, outcome: string): Promise<number> {
  const text = await (await exports.default.fetch("http://localhost/metrics", { headers: admin })).text();
  const line = text
    .split("\n")
    .find((l) => l.startsWith(`tool_runtime_audit_dead_letters_total{kind="${kind}",outcome="${outcome}"}`));
  return line ? Number(line.split(" ").at(-1)) : 0;
}

async function auditOf(tenant: string): Promise<{ execution_id: string }[]> {
  return (
    (await (await exports.default.fetch(`http://localhost/v1/audit?tenant=${tenant}`, { headers: admin })).json()) as {
      records: { execution_id: string }[];
    }
  ).records;
}

describe("the audit dead letter queue's consumer", () => {
  it("writes what can be written, once, and counts it", async () => {
    const tenant = `dlq-${crypto.randomUUID()}`;
    const message = finished(tenant);
    const before = await deadLetterCount("finished", "written");
    const first = await deliver([message]);
    const again = await deliver([message]); // a dead letter delivered twice is still one record
    expect(first.explicitAcks).toHaveLength(1);
    expect(again.explicitAcks).toHaveLength(1);
    expect((await auditOf(tenant)).map((r) => r.execution_id)).toEqual([
      (message as { record: { execution_id: string } }).record.execution_id,
    ]);
    expect((await deadLetterCount("finished", "written")) - before).toBe(2);
  });

  it("logs and counts what cannot be written, without holding back the rest of its batch", async () => {
    const tenant = `dlq-${crypto.randomUUID()}`;
    const good = finished(tenant);
    const broken = { kind: "finished", record: { execution_id: `exec_${crypto.randomUUID()}` }, retention_ms: 1 }; // no tenant, tool, status…
    const unknown = { kind: "from-a-newer-runtime", n: 1 };
    const before = {
      finished: await deadLetterCount("finished", "unwritable"),
      unknown: await deadLetterCount("unknown", "unwritable"),
    };
    const result = await deliver([broken, good, unknown]);
    expect(result.explicitAcks).toHaveLength(3);
    expect(result.retryMessages).toEqual([]);
    expect((await auditOf(tenant)).length).toBe(1);
    expect((await deadLetterCount("finished", "unwritable")) - before.finished).toBe(1);
    expect((await deadLetterCount("unknown", "unwritable")) - before.unknown).toBe(1);
  });
});
