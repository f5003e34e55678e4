/**
 * Executions that wait (docs/contract.md#waiting), inside workerd: a restart of every object while executions
 * wait — in their tenant's queue, at a provider's gate, for a person's approval — loses none of
 * them and keeps their order; a slot freed by a crash is handed on. `abortAllDurableObjects()`
 * is the restart (see execution-object.test.ts for why not evictDurableObject).
 */
import { abortAllDurableObjects, runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ApprovalDecision, Caller, ExecutionView } from "../../src/contract.ts";
import { executionScope } from "../../src/auth/roles.ts";
import { traceFrom } from "../../src/audit/trace.ts";
import type { ExecutionPlan } from "../../src/execution/execution-plan.ts";
import { newObjectExecutionId, objectStub } from "../../src/execution/ids.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution } from "../../src/pipeline/plan.ts";

const newCaller = (): Caller => ({
  tenant: `wait-${crypto.randomUUID()}`,
  agent: "tester",
  capabilities: [],
  channels: ["*"],
});

/** A plan for an execution object, with the tenant's limits a test needs (the config's are generous). */
async function plan(
  caller: Caller,
  body: Record<string, unknown>,
  over: (p: ExecutionPlan) => ExecutionPlan = (p) => p,
): Promise<ExecutionPlan> {
  const request = parseExecutionRequest({ mode: "async", limits: { timeout_ms: 20_000 }, ...body });
  const planned = (
    await planExecution(env, caller, request, {
      acceptedAt: Date.now(),
      trace: traceFrom(undefined),
      face: "rest",
      executionId: newObjectExecutionId(env),
    })
  ).plan;
  return over({ ...planned, limits: { ...planned.limits, max_concurrent: 1, max_queued: 10 } });
}

const tenantOf = (caller: Caller) => env.TENANTS.get(env.TENANTS.idFromName(caller.tenant));
const gateOf = (provider: string) => env.PROVIDER_GATES.get(env.PROVIDER_GATES.idFromName(provider));
const view = (caller: Caller, id: string) => objectStub(env, id).view(executionScope(caller)) as Promise<ExecutionView>;

async function until(
  caller: Caller,
  id: string,
  ok: (v: ExecutionView) => boolean,
  what: string,
): Promise<ExecutionView> {
  let last: ExecutionView | undefined;
  for (let i = 0; i < 300; i++) {
    last = await view(caller, id);
    if (last && ok(last)) return last;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what} never happened; last seen ${JSON.stringify(last?.status)}`);
}

async function start(p: ExecutionPlan): Promise<ExecutionView> {
  const answer = await objectStub(env, p.execution_id).start(p, "accepted");
  if (!answer.ok) throw new Error(`refused: ${answer.error.code}`);
  return answer.value.view;
}

describe("waiting executions survive restarts", () => {
  it("keeps the tenant's queue and its order across a restart, and hands the crashed holder's slot on", async () => {
    const caller = newCaller();
    const holder = await plan(caller, { tool: "lab.long", input: { ms: 15_000 } });
    const second = await plan(caller, { tool: "lab.long", input: { ms: 15_000 } });
    const third = await plan(caller, { tool: "lab.echo", input: { n: 3 } });
    expect((await start(holder)).status).toBe("running");
    expect(await start(second)).toMatchObject({ status: "queued" });
    expect(await start(third)).toMatchObject({ status: "queued" });
    expect((await view(caller, second.execution_id)).position).toBe(1);
    expect((await view(caller, third.execution_id)).position).toBe(2);

    await abortAllDurableObjects();

    // The holder's run went with its object: it ends, and its slot goes to the head of the queue.
    expect(await view(caller, holder.execution_id)).toMatchObject({
      status: "failed",
      error: { details: { reason: "execution object restarted" } },
    });
    await until(caller, second.execution_id, (v) => v.status === "running", "the head of the queue running");
    // Nothing waiting was lost, and the order held: the third is next.
    expect(await view(caller, third.execution_id)).toMatchObject({ status: "queued", position: 1 });
    await objectStub(env, second.execution_id).cancel(executionScope(caller), 0);
    const last = await until(
      caller,
      third.execution_id,
      (v) => v.status === "succeeded",
      "the third running after the second",
    );
    expect(last.output).toEqual({ n: 3 });
    expect(last.execution.queued_ms).toBeGreaterThan(0);
  });

  it("keeps a call waiting at a full provider across a restart, and runs it when the permit comes back", async () => {
    const caller = newCaller();
    const provider = `gate-test-${crypto.randomUUID()}`;
    // A provider of one call at a time, already busy: a permit held by someone else.
    const limited = (p: ExecutionPlan): ExecutionPlan => ({
      ...p,
      limits: { ...p.limits, max_concurrent: 5 },
      providers: [{ ...p.providers[0], provider, max_concurrency: 1 }],
    });
    await gateOf(provider).acquire({
      provider,
      permit_id: "busy:1",
      execution_id: "busy",
      tenant: "someone-else",
      limit: 1,
      lease_ms: 60_000,
      wait: false,
    });
    const p = await plan(caller, { tool: "lab.echo", input: { waited: true } }, limited);
    expect(await start(p)).toMatchObject({ status: "scheduled" });
    expect((await view(caller, p.execution_id)).position).toBe(1);

    await abortAllDurableObjects();

    expect(await view(caller, p.execution_id)).toMatchObject({ status: "scheduled", position: 1 });
    await gateOf(provider).release("busy:1");
    const done = await until(
      caller,
      p.execution_id,
      (v) => v.status === "succeeded",
      "the call running once the provider had room",
    );
    expect(done.output).toEqual({ waited: true });
    // Its permit went back when the call returned.
    for (let i = 0; i < 100 && (await gateOf(provider).load()).in_flight > 0; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(await gateOf(provider).load()).toEqual({ in_flight: 0, waiting: 0 });
  });

  it("gives the next permit to tenant B's call while tenant A, holding permits, has ten calls waiting", async () => {
    const [a, b] = [newCaller(), newCaller()];
    const provider = `gate-fair-${crypto.randomUUID()}`;
    const limited = (p: ExecutionPlan): ExecutionPlan => ({
      ...p,
      limits: { ...p.limits, max_concurrent: 20 },
      providers: [{ ...p.providers[0], provider, max_concurrency: 2 }],
    });
    // Tenant A holds both permits of a provider of two calls at a time.
    for (const id of ["a-busy-1", "a-busy-2"]) {
      expect(
        await gateOf(provider).acquire({
          provider,
          permit_id: `${id}:1`,
          execution_id: id,
          tenant: a.tenant,
          limit: 2,
          lease_ms: 60_000,
          wait: false,
        }),
      ).toEqual({ ok: true });
    }
    const waitingA: ExecutionPlan[] = [];
    for (let i = 0; i < 10; i++) {
      const p = await plan(a, { tool: "lab.echo", input: { i } }, limited);
      expect(await start(p)).toMatchObject({ status: "scheduled" });
      waitingA.push(p);
    }
    const bCall = await plan(b, { tool: "lab.long", input: { ms: 5_000 } }, limited);
    expect(await start(bCall)).toMatchObject({ status: "scheduled" });
    // B holds nothing and A holds two: B is first in line, though A came first ten times.
    expect((await view(b, bCall.execution_id)).position).toBe(1);
    expect((await view(a, waitingA[0].execution_id)).position).toBe(2);

    await gateOf(provider).release("a-busy-1:1");
    await until(b, bCall.execution_id, (v) => v.status === "running", "tenant B's call running on the freed permit");
    // Both permits are out (A's one, B's one): all ten of A's calls still wait, in their order.
    for (const [i, p] of waitingA.entries())
      expect(await view(a, p.execution_id)).toMatchObject({ status: "scheduled", position: i + 1 });
    expect(await gateOf(provider).load()).toEqual({ in_flight: 2, waiting: 10 });

    for (const p of waitingA) await objectStub(env, p.execution_id).cancel(executionScope(a), 0);
    await objectStub(env, bCall.execution_id).cancel(executionScope(b), 0);
    await gateOf(provider).release("a-busy-2:1");
  });

  it("keeps a call awaiting approval across a restart; approved, it runs", async () => {
    const caller = newCaller();
    const p = await plan(caller, { tool: "lab.echo", input: { approved: "yes" } }, (x) => ({
      ...x,
      approval: { rule: "tool lab.echo", window_ms: 60_000 },
    }));
    expect(await start(p)).toMatchObject({
      status: "awaiting_approval",
      approval: { rule: "tool lab.echo", decision: null },
    });
    expect((await tenantOf(caller).approvals()).map((a) => a.execution_id)).toEqual([p.execution_id]);

    await abortAllDurableObjects();

    expect(await view(caller, p.execution_id)).toMatchObject({ status: "awaiting_approval" });
    expect((await tenantOf(caller).approvals()).map((a) => a.execution_id)).toEqual([p.execution_id]);
    const decision: ApprovalDecision = {
      decision: "approved",
      approver: "alice",
      reason: null,
      at: new Date().toISOString(),
    };
    const decided = await objectStub(env, p.execution_id).decide(caller.tenant, decision);
    expect(decided).toMatchObject({ ok: true });
    const done = await until(caller, p.execution_id, (v) => v.status === "succeeded", "the approved call running");
    expect(done).toMatchObject({
      output: { approved: "yes" },
      approval: { decision: { decision: "approved", approver: "alice" } },
    });
    expect(await tenantOf(caller).approvals()).toEqual([]);
    // Deciding again changes nothing and says why.
    expect(
      await objectStub(env, p.execution_id).decide(caller.tenant, {
        ...decision,
        decision: "rejected",
        reason: "late",
      }),
    ).toMatchObject({
      ok: false,
      error: { code: "approval_not_pending", details: { status: "succeeded", decision: "approved" } },
    });
  });

  it("ends an approval nobody gave in time as approval_expired, by its alarm, without running it", async () => {
    const caller = newCaller();
    const p = await plan(caller, { tool: "lab.echo", input: {} }, (x) => ({
      ...x,
      approval: { rule: "tool lab.echo", window_ms: 30 },
    }));
    await start(p);
    await new Promise((r) => setTimeout(r, 60));
    await runDurableObjectAlarm(objectStub(env, p.execution_id));
    const ended = await view(caller, p.execution_id);
    expect(ended).toMatchObject({
      status: "failed",
      error: { code: "approval_expired" },
      execution: { started_ms: null, worker: null },
    });
    expect(ended.attempts).toBeUndefined();
  });

  it("cancels a queued execution at once (before_start) and takes it out of its tenant's queue", async () => {
    const caller = newCaller();
    const holder = await plan(caller, { tool: "lab.long", input: { ms: 5_000 } });
    const waiting = await plan(caller, { tool: "lab.echo", input: {} });
    await start(holder);
    await start(waiting);
    const cancelled = await objectStub(env, waiting.execution_id).cancel(executionScope(caller), 0);
    expect(cancelled).toMatchObject({
      status: "cancelled",
      cancellation: { outcome: "before_start" },
      execution: { started_ms: null },
    });
    expect(await tenantOf(caller).position(waiting.execution_id)).toBeNull();
    await objectStub(env, holder.execution_id).cancel(executionScope(caller), 0);
  });
});
