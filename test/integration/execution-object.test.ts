import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, ExecutionView, Outcome } from "../../src/contract.ts";
import { executionScope } from "../../src/auth/roles.ts";
import { traceFrom } from "../../src/audit/trace.ts";
import type { ExecutionPlan } from "../../src/execution/execution-plan.ts";
import type { StartAnswer } from "../../src/execution/object-rpc.ts";
import { newObjectExecutionId, objectStub } from "../../src/execution/ids.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution } from "../../src/pipeline/plan.ts";

const caller: Caller = { tenant: `t-${crypto.randomUUID()}`, agent: "tester", capabilities: [], channels: ["*"] };

/** A plan for an execution object; a generous budget unless the test sets one (2 shared cores, workerd under vite). */
async function plan(body: Record<string, unknown>): Promise<ExecutionPlan> {
  const executionId = newObjectExecutionId(env);
  const request = parseExecutionRequest({ limits: { timeout_ms: 20_000 }, ...body });
  return (
    await planExecution(env, caller, request, {
      acceptedAt: Date.now(),
      trace: traceFrom(undefined),
      face: "rest",
      executionId,
    })
  ).plan;
}

const stubOf = (p: { execution_id: string } | string) => objectStub(env, typeof p === "string" ? p : p.execution_id);

function viewOf(result: Outcome<StartAnswer>): ExecutionView {
  if (!result.ok) throw new Error(`expected an execution, got ${result.error.code}`);
  return result.value.view;
}

async function waitForStatus(executionId: string, status: string): Promise<ExecutionView> {
  for (let i = 0; i < 200; i++) {
    const view = await stubOf(executionId).view(executionScope(caller));
    if (view?.status === status) return view;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`execution never reached ${status}`);
}

async function waitForPartial(executionId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const partials = await runInDurableObject(
      stubOf(executionId),
      (_instance, state) =>
        [...state.storage.kv.list<{ type: string }>({ prefix: "e:" })].filter(([, e]) => e.type === "partial").length,
    );
    if (partials > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("no partial output was ever emitted");
}

describe("ExecutionObject", () => {
  // evictDurableObject waits for the object's references to drain, and the provider holds
  // one (the sink) for the whole call; aborting the object is the restart we must survive.
  it("ends an execution whose object restarted mid-call in exactly one terminal state", async () => {
    const p = await plan({ tool: "demo.countdown", mode: "async", input: { from: 100, interval_ms: 20 } });
    const stub = stubOf(p);
    expect(viewOf(await stub.start(p, "accepted"))).toMatchObject({ status: "running" });
    await waitForPartial(p.execution_id);

    await abortAllDurableObjects();

    const view = await stubOf(p).view(executionScope(caller));
    expect(view).toMatchObject({
      status: "failed",
      error: { code: "internal", details: { reason: "execution object restarted" } },
    });
    // What the tool emitted before the restart is kept.
    expect((view!.partial_output as { counted: number[] }).counted[0]).toBe(100);
    // Asking again changes nothing: the terminal state is final.
    expect(await stubOf(p).view(executionScope(caller))).toEqual(view);
  });

  it("lets its deadline alarm end a call the in-memory timer did not", async () => {
    const p = await plan({ tool: "lab.stall", input: { ms: 60_000 }, limits: { timeout_ms: 120_000 } });
    const stub = stubOf(p);
    const pending = stub.start(p, "end").then(viewOf);
    await waitForStatus(p.execution_id, "running");
    // The partial it sends first has arrived (it comes through the relay: src/execution/provider-relay.ts).
    await waitForPartial(p.execution_id);

    expect(await runDurableObjectAlarm(stubOf(p))).toBe(true);
    const view = await pending;
    expect(view).toMatchObject({
      status: "timed_out",
      error: { code: "timeout" },
      partial_output: { stage: "before the wait" },
    });
  });

  it("runs a plan once: the same plan started again attaches to the execution it started", async () => {
    const p = await plan({ tool: "lab.echo", input: { n: 1 } });
    const stub = stubOf(p);
    const first = await stub.start(p, "end");
    const second = await stub.start(p, "end");
    expect(first).toMatchObject({ ok: true, value: { replayed: false } });
    expect(second).toEqual({ ok: true, value: { ...(first.ok && first.value), replayed: true } });
  });

  it("hides an execution from any other tenant", async () => {
    const p = await plan({ tool: "lab.echo", input: {} });
    await stubOf(p).start(p, "end");
    expect(await stubOf(p).view({ tenant: "someone-else", agent: null })).toBeNull();
  });

  it("deletes a finished execution and its events when its retention alarm fires", async () => {
    const p = { ...(await plan({ tool: "lab.echo", input: { keep: "briefly" } })), retention_ms: 1 };
    const stub = stubOf(p);
    expect(viewOf(await stub.start(p, "end"))).toMatchObject({ status: "succeeded" });
    // The real alarm, 1 ms after the end; run it now if it has not fired yet.
    await runDurableObjectAlarm(stubOf(p));
    for (let i = 0; i < 100 && (await stub.view(executionScope(caller))) !== null; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(await stub.view(executionScope(caller))).toBeNull();
    // Everything it stored is gone.
    const keys = await runInDurableObject(stubOf(p), (_i, state) => [...state.storage.kv.list()].map(([k]) => k));
    expect(keys).toEqual([]);
  });

  it("keeps a finished execution until its retention window is over", async () => {
    const p = await plan({ tool: "lab.echo", input: {} });
    const stub = stubOf(p);
    await stub.start(p, "end");
    // The alarm now points at the end of the 24 h window; running it early deletes nothing.
    expect(await runDurableObjectAlarm(stubOf(p))).toBe(true);
    expect(await stub.view(executionScope(caller))).toMatchObject({ status: "succeeded" });
  });
});
