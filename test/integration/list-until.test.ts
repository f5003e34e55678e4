/**
 * `GET /v1/executions?until=` (docs/contract.md#routes): only executions accepted before that
 * instant (exclusive), newest first, alone and with `since=`. The index is filled the way the
 * audit pipeline fills it — finished records through the real queue consumer — with acceptance
 * times an hour apart that the test chooses, so no boundary depends on when the test runs.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import worker from "../../src/index.ts";
import { executionRecord } from "../fixtures/record.ts";
import { mintKey, send } from "./worker-http.ts";

const HOUR = 3_600_000;

/** Three finished executions of `tenant`, accepted 3, 2 and 1 hours before `now`, delivered to the audit store. */
async function threeHoursOfRuns(tenant: string, now: number): Promise<string[]> {
  const records = [3, 2, 1].map((h) =>
    executionRecord("succeeded", {
      tenant,
      agent: "dev-agent",
      accepted_at: now - h * HOUR,
      ended_at: now - h * HOUR + 50,
    }),
  );
  const messages: AuditMessage[] = records.map((record) => ({
    kind: "finished",
    record: auditEntryOf(record),
    retention_ms: 86_400_000,
  }));
  const batch = createMessageBatch(
    "tool-runtime-audit",
    messages.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<AuditMessage>, env);
  expect((await getQueueResult(batch, ctx)).retryBatch.retry).toBe(false);
  return records.map((r) => r.execution_id);
}

const iso = (t: number) => new Date(t).toISOString();

describe("GET /v1/executions?until=", () => {
  it("lists only the executions accepted before until, alone and with since", async () => {
    const tenant = `until-${crypto.randomUUID()}`;
    const now = Date.now();
    const [oldest, middle, newest] = await threeHoursOfRuns(tenant, now);
    const key = await mintKey(env, tenant, { role: "tenant_admin" });
    const ids = async (query: string) => {
      const res = await send(env, "GET", `/v1/executions?${query}`, key);
      expect(res.status).toBe(200);
      return res.json.executions.map((e: { execution_id: string }) => e.execution_id);
    };
    expect(await ids("")).toEqual([newest, middle, oldest]);
    expect(await ids(`until=${iso(now - 90 * 60_000)}`)).toEqual([middle, oldest]);
    // Exclusive: an execution accepted at the very instant is left out.
    expect(await ids(`until=${iso(now - 2 * HOUR)}`)).toEqual([oldest]);
    expect(await ids(`since=${iso(now - 150 * 60_000)}&until=${iso(now - 90 * 60_000)}`)).toEqual([middle]);
    const bad = await send(env, "GET", "/v1/executions?until=yesterday", key);
    expect([bad.status, bad.json.error?.details]).toEqual([400, { field: "until" }]);
  });
});
