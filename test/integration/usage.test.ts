/**
 * What a tenant used (`GET /v1/usage`, docs/contract.md#usage): its calls by day, tool and status
 * as the audit queue's consumer recorded them, the providers' CPU reports, totals that are the
 * sums, a cost that is the price model applied; another tenant's calls never in it; read by the
 * tenant's admin (its own only) and operators, refused to agents; bad windows refused.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import type { TenantUsage } from "../../src/contract.ts";
import { estimateCost, PRICES } from "../../src/audit/usage-prices.ts";
import worker from "../../src/index.ts";
import { mintKey, send, withTenantLimits } from "./worker-http.ts";

const e = withTenantLimits({ "usage-*": { requests_per_second: 1000, burst: 1000 } });
const tenant = () => `usage-${crypto.randomUUID().slice(0, 8)}`;
// An instant tool's default budget (100 ms) can be shed on a loaded machine.
const roomy = { timeout_ms: 20_000 };
const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

async function call(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await send(e, "POST", "/v1/executions", key, { ...body, limits: roomy });
  // A failed call answers 422 with its view: every call here makes an execution.
  expect(res.json.execution_id).toMatch(/^exec_/);
  return res.json.execution_id;
}

/** A CPU report for an execution's first attempt, through the runtime's own queue handler. */
async function reportCpu(executionId: string, cpuMs: number): Promise<void> {
  const body: AuditMessage = {
    kind: "usage",
    reports: [{ execution_id: executionId, attempt: 1, cpu_ms: cpuMs }],
    expires_at: Date.now() + 86_400_000,
  };
  const batch = createMessageBatch("tool-runtime-audit", [
    { id: crypto.randomUUID(), timestamp: Date.now(), attempts: 1, body },
  ]);
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<AuditMessage>, env);
  expect((await getQueueResult(batch, ctx)).retryBatch.retry).toBe(false);
}

/** The usage `key` reads with `query`, polled (bounded) until `done` holds: the consumer writes a second or so after a call. */
async function usageUntil(key: string, query: string, done: (u: TenantUsage) => boolean): Promise<TenantUsage> {
  let last: unknown;
  for (let i = 0; i < 150; i++) {
    const res = await send(e, "GET", `/v1/usage?${query}`, key);
    expect(res.status).toBe(200);
    last = res.json;
    if (done(res.json)) return res.json;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`usage never complete: ${JSON.stringify(last)}`);
}

describe("GET /v1/usage", () => {
  it("counts a tenant's calls by tool and status, with CPU reports, totals that add up and the model's cost", async () => {
    const [a, b] = [tenant(), tenant()];
    const [agentA, adminA, agentB] = [
      await mintKey(e, a),
      await mintKey(e, a, { role: "tenant_admin" }),
      await mintKey(e, b),
    ];
    const first = dayOf(Date.now());
    const echo = await call(agentA, { tool: "lab.echo", input: { n: 1 } });
    await call(agentA, { tool: "lab.echo", input: { n: 2 } });
    await call(agentA, { tool: "lab.echo", input: { n: 3 }, mode: "async" });
    await call(agentA, { tool: "lab.reject", input: { code: "not_ready" } });
    await call(agentB, { tool: "lab.echo", input: { n: 4 } });
    await reportCpu(echo, 7.5);
    const last = dayOf(Date.now());

    const window = `from=${first}&to=${last}`;
    const usage = await usageUntil(adminA, window, (u) => u.totals.executions.total >= 4 && u.totals.cpu_ms !== null);
    expect(usage).toMatchObject({ tenant: a, from: first, to: last, prices: PRICES });
    expect(usage.oldest_record_at).not.toBeNull();
    expect(Date.parse(usage.oldest_record_at!)).toBeLessThanOrEqual(Date.now());
    for (const d of usage.days) expect(d.day >= first && d.day <= last).toBe(true);
    const tools = [...new Set(usage.days.map((d) => d.tool))].sort();
    expect(tools).toEqual(["lab.echo", "lab.reject"]);
    const of = (tool: string) => {
      const days = usage.days.filter((d) => d.tool === tool);
      return {
        executions: days.reduce((n, d) => n + d.executions.total, 0),
        succeeded: days.reduce((n, d) => n + d.executions.succeeded, 0),
        failed: days.reduce((n, d) => n + d.executions.failed, 0),
        edge: days.reduce((n, d) => n + d.paths.edge, 0),
        object: days.reduce((n, d) => n + d.paths.object, 0),
        cpu_ms: days.some((d) => d.cpu_ms !== null) ? days.reduce((n, d) => n + (d.cpu_ms ?? 0), 0) : null,
      };
    };
    // Under workerd a provider's invocation reports no measured CPU: only the delivered report counts.
    expect(of("lab.echo")).toEqual({ executions: 3, succeeded: 3, failed: 0, edge: 2, object: 1, cpu_ms: 7.5 });
    expect(of("lab.reject")).toEqual({ executions: 1, succeeded: 0, failed: 1, edge: 1, object: 0, cpu_ms: null });

    for (const d of usage.days) {
      const { succeeded, failed, cancelled, timed_out, total } = d.executions;
      expect(succeeded + failed + cancelled + timed_out).toBe(total);
      expect(d.paths.edge + d.paths.object).toBe(total);
      expect(d.estimated_cost_usd).toBe(estimateCost(PRICES, d.paths.edge, d.paths.object, d.cpu_ms ?? 0));
    }
    expect(usage.totals).toEqual({
      executions: { succeeded: 3, failed: 1, cancelled: 0, timed_out: 0, total: 4 },
      paths: { edge: 3, object: 1 },
      cpu_ms: 7.5,
      estimated_cost_usd: expect.closeTo(estimateCost(PRICES, 3, 1, 7.5), 9),
    });
    expect(usage.totals.estimated_cost_usd).toBeCloseTo(
      usage.days.reduce((s, d) => s + d.estimated_cost_usd, 0),
      9,
    );

    // One tool only; the operator reads the same for the tenant it names; B's own admin sees B's call alone.
    const rejects = await send(e, "GET", `/v1/usage?${window}&tool=lab.reject`, adminA);
    expect(rejects.json.days.map((d: { tool: string }) => d.tool)).toEqual(["lab.reject"]);
    expect(rejects.json.totals.executions.total).toBe(1);
    const byOperator = await send(e, "GET", `/v1/usage?${window}&tenant=${a}`, env.DEV_ADMIN_KEY);
    expect({ ...byOperator.json, oldest_record_at: null }).toEqual({ ...usage, oldest_record_at: null });
    const adminB = await mintKey(e, b, { role: "tenant_admin" });
    const usageB = await usageUntil(adminB, window, (u) => u.totals.executions.total >= 1);
    expect(usageB.tenant).toBe(b);
    expect(usageB.totals.executions).toEqual({ succeeded: 1, failed: 0, cancelled: 0, timed_out: 0, total: 1 });
  });

  it("refuses an agent key, and a tenant admin naming another tenant, with 403", async () => {
    const [a, b] = [tenant(), tenant()];
    const agent = await mintKey(e, a);
    const admin = await mintKey(e, a, { role: "tenant_admin" });
    const byAgent = await send(e, "GET", "/v1/usage", agent);
    expect([byAgent.status, byAgent.json.error.code, byAgent.json.error.details.reason]).toEqual([
      403,
      "forbidden",
      "tenant_admin role required",
    ]);
    const other = await send(e, "GET", `/v1/usage?tenant=${b}`, admin);
    expect([other.status, other.json.error.code, other.json.error.details]).toEqual([
      403,
      "forbidden",
      { reason: "another tenant", field: "tenant" },
    ]);
    // Its own tenant, named or not: the last seven days by default.
    const own = await send(e, "GET", `/v1/usage?tenant=${a}`, admin);
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ tenant: a, to: dayOf(Date.now()), days: [] });
    expect((Date.parse(own.json.to) - Date.parse(own.json.from)) / 86_400_000).toBe(6);
  });

  it("refuses a bad window with 400 invalid_request naming the field", async () => {
    const admin = await mintKey(e, tenant(), { role: "tenant_admin" });
    for (const [query, field] of [
      ["from=2026-13-01", "from"],
      ["to=yesterday", "to"],
      ["from=2026-02-30&to=2026-03-01", "from"],
      ["from=2026-12-02&to=2026-12-01", "from"],
      ["from=2026-01-01&to=2026-12-01", "from"],
    ]) {
      const res = await send(e, "GET", `/v1/usage?${query}`, admin);
      expect([query, res.status, res.json.error?.code, res.json.error?.details?.field]).toEqual([
        query,
        400,
        "invalid_request",
        field,
      ]);
    }
    // 92 days is the most one answer covers.
    expect((await send(e, "GET", "/v1/usage?from=2026-09-01&to=2026-12-01", admin)).status).toBe(200);
  });
});
