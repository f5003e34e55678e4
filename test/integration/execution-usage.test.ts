/**
 * CPU reports reach an execution object after the fact (src/audit/tail.ts → recordUsage), and a
 * settled attempt lets the provider's invocation end, without which the platform never reports it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, ExecutionView } from "../../src/contract.ts";
import { tenantHash } from "../../src/audit/shards.ts";
import { attemptNonce } from "../../src/audit/report-nonce.ts";
import { executionScope } from "../../src/auth/roles.ts";
import { consumeTail } from "../../src/audit/tail.ts";
import { traceFrom } from "../../src/audit/trace.ts";
import { newObjectExecutionId, objectStub } from "../../src/execution/ids.ts";
import { StopLatch } from "../../src/execution/provider-call.ts";
import { ExecutionSinkTarget } from "../../src/execution/sink.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution } from "../../src/pipeline/plan.ts";
import { deployedInvoke, localInvoke } from "../fixtures/trace-items.ts";

const caller: Caller = { tenant: `t-${crypto.randomUUID()}`, agent: "tester", capabilities: [], channels: ["*"] };

/** A finished async lab.echo in its own object. */
async function finishedExecution(): Promise<string> {
  const executionId = newObjectExecutionId(env);
  const request = parseExecutionRequest({
    tool: "lab.echo",
    input: { n: 1 },
    mode: "async",
    limits: { timeout_ms: 20_000 },
  });
  const { plan } = await planExecution(env, caller, request, {
    acceptedAt: Date.now(),
    trace: traceFrom(undefined),
    face: "rest",
    executionId,
  });
  await objectStub(env, executionId).start(plan, "end");
  return executionId;
}

const view = async (id: string) => (await objectStub(env, id).view(executionScope(caller))) as ExecutionView;

describe("an attempt's sink", () => {
  it("answers a stopped() call still waiting once the attempt is settled", async () => {
    const sink = new ExecutionSinkTarget(() => {}, new StopLatch());
    const waiting = sink.stopped();
    sink.close();
    await expect(waiting).resolves.toEqual({ reason: "settled" });
  });

  it("still says why when the stop came first", async () => {
    const stop = new StopLatch();
    const sink = new ExecutionSinkTarget(() => {}, stop);
    stop.fire("timeout");
    sink.close();
    await expect(sink.stopped()).resolves.toEqual({ reason: "timeout" });
  });
});

describe("CPU reports in an execution object", () => {
  it("shows a report beside the record in every later view; the first report of an attempt stands", async () => {
    const id = await finishedExecution();
    expect((await view(id)).execution.resources).toEqual({ cpu_ms: null, peak_memory_mb: null, cpu_report: "none" });
    await objectStub(env, id).recordUsage(1, 4.5);
    await objectStub(env, id).recordUsage(1, 99);
    const after = await view(id);
    expect(after.execution.resources).toEqual({ cpu_ms: 4.5, peak_memory_mb: null, cpu_report: "measured" });
    expect(after.attempts![0].cpu_ms).toBe(4.5);
  });

  it("keeps nothing for an execution it does not hold, or for an attempt number out of range", async () => {
    const nobody = newObjectExecutionId(env);
    await objectStub(env, nobody).recordUsage(1, 3);
    expect(await runInDurableObject(objectStub(env, nobody), (_o, state) => [...state.storage.kv.list()].length)).toBe(
      0,
    );
    const id = await finishedExecution();
    for (const attempt of [0, -1, 1.5, 100_000]) await objectStub(env, id).recordUsage(attempt, 3);
    expect((await view(id)).execution.resources.cpu_report).toBe("none");
  });

  it("is where the tail handler puts a report for an object's execution", async () => {
    const [local, deployed] = [await finishedExecution(), await finishedExecution()];
    await consumeTail(
      [
        localInvoke(local, 1, await attemptNonce(env, local, 1, caller.tenant)),
        deployedInvoke(deployed, 1, 6, 20, {}, await attemptNonce(env, deployed, 1, caller.tenant)),
      ],
      env,
    );
    expect((await view(local)).execution.resources).toEqual({
      cpu_ms: null,
      peak_memory_mb: null,
      cpu_report: "unmeasured",
    });
    expect((await view(deployed)).execution.resources).toEqual({
      cpu_ms: 6,
      peak_memory_mb: null,
      cpu_report: "measured",
    });
  });

  it("takes no report without the nonce the runtime sent with that attempt", async () => {
    const [target, own] = [await finishedExecution(), await finishedExecution()];
    // A provider's line naming another execution, with its own attempt's nonce, or with none.
    await consumeTail(
      [
        deployedInvoke(target, 1, 700, 800, {}, await attemptNonce(env, own, 1, caller.tenant)),
        deployedInvoke(target, 1, 700, 800),
      ],
      env,
    );
    expect((await view(target)).execution.resources.cpu_report).toBe("none");
  });

  it("gives each attempt a nonce of its own, the same from any isolate", async () => {
    const id = await finishedExecution();
    const nonce = await attemptNonce(env, id, 1, caller.tenant);
    expect(nonce).toMatch(/^[0-9a-f]{32}-[0-9a-f]{8}$/);
    // It names the tenant's hash, which names the tenant's audit shard (src/audit/shards.ts).
    expect(nonce!.slice(33)).toBe(tenantHash(caller.tenant));
    // The same in another call (the key is the deployment's), and another for another attempt.
    expect(await attemptNonce(env, id, 1, caller.tenant)).toBe(nonce);
    expect(await attemptNonce(env, id, 2, caller.tenant)).not.toBe(nonce);
  });
});
