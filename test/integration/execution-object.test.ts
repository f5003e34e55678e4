import { abortAllDurableObjects, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { ExecutionView } from "../../src/contract.ts";
import type { Caller } from "../../src/pipeline/capability.ts";
import { executionStub, type ExecutionPlan, type ExecutionResult } from "../../src/pipeline/dispatch.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution } from "../../src/pipeline/plan.ts";

const caller: Caller = { tenant: `t-${crypto.randomUUID()}`, agent: "tester", capabilities: [], channels: ["*"] };

async function plan(body: unknown): Promise<ExecutionPlan> {
  return (await planExecution(env, caller, parseExecutionRequest(body), Date.now())).plan;
}

function rawStub(executionId: string) {
  return env.EXECUTIONS.get(env.EXECUTIONS.idFromString(executionId.slice("exec_".length)));
}

function viewOf(result: ExecutionResult): ExecutionView {
  if (result.kind !== "started" && result.kind !== "replayed") throw new Error(`expected an execution, got ${result.kind}`);
  return result.view;
}

async function waitForStatus(executionId: string, status: string): Promise<ExecutionView> {
  for (let i = 0; i < 200; i++) {
    const view = await executionStub(env, executionId)!.view(caller.tenant);
    if (view?.status === status) return view;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`execution never reached ${status}`);
}

async function waitForPartial(executionId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const partials = await runInDurableObject(rawStub(executionId), (_instance, state) =>
      state.storage.sql.exec("SELECT seq FROM events WHERE type = 'partial'").toArray().length,
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
    const stub = executionStub(env, p.execution_id)!;
    expect(viewOf(await stub.execute(p))).toMatchObject({ status: "running" });
    await waitForPartial(p.execution_id);

    await abortAllDurableObjects();

    const view = await executionStub(env, p.execution_id)!.view(caller.tenant);
    expect(view).toMatchObject({ status: "failed", error: { code: "internal", details: { reason: "execution object restarted" } } });
    // What the tool emitted before the restart is kept.
    expect((view!.partial_output as { counted: number[] }).counted[0]).toBe(100);
    // Asking again changes nothing: the terminal state is final.
    expect(await executionStub(env, p.execution_id)!.view(caller.tenant)).toEqual(view);
  });

  it("lets its deadline alarm end a call the in-memory timer did not", async () => {
    const p = await plan({ tool: "lab.stall", input: { ms: 60_000 }, limits: { timeout_ms: 120_000 } });
    const stub = executionStub(env, p.execution_id)!;
    const pending = stub.execute(p).then(viewOf);
    await waitForStatus(p.execution_id, "running");

    expect(await runDurableObjectAlarm(rawStub(p.execution_id))).toBe(true);
    const view = await pending;
    expect(view).toMatchObject({ status: "timed_out", error: { code: "timeout" }, partial_output: { stage: "before the wait" } });
  });

  it("never dispatches the same plan twice", async () => {
    const p = await plan({ tool: "lab.echo", input: { n: 1 } });
    const stub = executionStub(env, p.execution_id)!;
    const first = await stub.execute(p);
    const second = await stub.execute(p);
    expect(first.kind).toBe("started");
    expect(second).toEqual({ ...first, kind: "replayed" });
  });

  it("hides an execution from any other tenant", async () => {
    const p = await plan({ tool: "lab.echo", input: {} });
    await executionStub(env, p.execution_id)!.execute(p);
    expect(await executionStub(env, p.execution_id)!.view("someone-else")).toBeUndefined();
  });

  it("deletes a finished execution and its events when its retention alarm fires", async () => {
    const p = { ...(await plan({ tool: "lab.echo", input: { keep: "briefly" } })), retention_ms: 1 };
    const stub = executionStub(env, p.execution_id)!;
    expect(viewOf(await stub.execute(p))).toMatchObject({ status: "succeeded" });
    // The real alarm, 1 ms after the end; run it now if it has not fired yet.
    await runDurableObjectAlarm(rawStub(p.execution_id));
    for (let i = 0; i < 100 && (await stub.view(caller.tenant)) !== undefined; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await stub.view(caller.tenant)).toBeUndefined();
    // Everything it stored is gone (the tables are set up again, empty, for a reused key).
    const rows = await runInDurableObject(rawStub(p.execution_id), (_i, state) => [
      ...state.storage.sql.exec("SELECT 1 FROM execution").toArray(),
      ...state.storage.sql.exec("SELECT 1 FROM events").toArray(),
      ...state.storage.sql.exec("SELECT 1 FROM response").toArray(),
    ]);
    expect(rows).toEqual([]);
  });

  it("keeps a finished execution until its retention window is over", async () => {
    const p = await plan({ tool: "lab.echo", input: {} });
    const stub = executionStub(env, p.execution_id)!;
    await stub.execute(p);
    // The alarm now points at the end of the 24 h window; running it early deletes nothing.
    expect(await runDurableObjectAlarm(rawStub(p.execution_id))).toBe(true);
    expect(await stub.view(caller.tenant)).toMatchObject({ status: "succeeded" });
  });
});
