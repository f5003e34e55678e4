/**
 * CPU reports of an execution object's attempts reach the audit store after the fact, batched per
 * isolate (src/audit/tail.ts), and GET reads them from there (src/execution/reads.ts); and a
 * settled attempt lets the provider's invocation end, without which the platform never reports it.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, ExecutionView } from "../../src/contract.ts";
import type { AuditMessage } from "../../src/audit/messages.ts";
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
import { get } from "../../src/execution/reads.ts";
import { deployedInvoke, localInvoke } from "../fixtures/trace-items.ts";
import { deliverAudit as deliver } from "./worker-http.ts";

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

const usage = (id: string, attempt: number, cpu_ms: number): AuditMessage => ({
  kind: "usage",
  reports: [{ execution_id: id, attempt, cpu_ms, tenant_hash: tenantHash(caller.tenant) }],
  expires_at: Date.now() + 86_400_000,
});

/** GET /v1/executions/{id} as the service answers it for the caller. */
async function read(id: string): Promise<ExecutionView> {
  const answer = await get({ env, caller }, id);
  if (!answer.ok) throw new Error(JSON.stringify(answer.error));
  return answer.value;
}

/** The runtime's env with its audit queue's sends written down. */
function countingSends(): { env: Env; sent: AuditMessage[] } {
  const sent: AuditMessage[] = [];
  const queue = {
    send: (body: AuditMessage, options?: QueueSendOptions) => {
      sent.push(body);
      return env.AUDIT_QUEUE.send(body, options);
    },
  };
  return { env: { ...env, AUDIT_QUEUE: queue as Env["AUDIT_QUEUE"] }, sent };
}

describe("CPU reports of an object's execution", () => {
  it("show in GET once the audit store has them; the first report of an attempt stands", async () => {
    const id = await finishedExecution();
    expect((await read(id)).execution.resources).toEqual({ cpu_ms: null, peak_memory_mb: null, cpu_report: "none" });
    await deliver([usage(id, 1, 4.5)]);
    await deliver([usage(id, 1, 99)]);
    const after = await read(id);
    expect(after.execution.resources).toEqual({ cpu_ms: 4.5, peak_memory_mb: null, cpu_report: "measured" });
    expect(after.attempts![0].cpu_ms).toBe(4.5);
    // The object itself was not told: its own view has none.
    expect((await view(id)).execution.resources.cpu_report).toBe("none");
  });

  it("a report the object kept before reports moved to the store stands", async () => {
    const id = await finishedExecution();
    await runInDurableObject(objectStub(env, id), (_o, state) => state.storage.kv.put("u:0001", 7));
    await deliver([usage(id, 1, 99)]);
    expect((await read(id)).execution.resources).toEqual({ cpu_ms: 7, peak_memory_mb: null, cpu_report: "measured" });
  });

  it("the tail handler sends reports that arrive together as one audit message, which GET then reads", async () => {
    const [local, deployed] = [await finishedExecution(), await finishedExecution()];
    const { env: counted, sent } = countingSends();
    // Both nonces first, so that the two invocations start together (the window is 100 ms).
    const nonces = [
      await attemptNonce(env, local, 1, caller.tenant),
      await attemptNonce(env, deployed, 1, caller.tenant),
    ];
    await Promise.all([
      consumeTail([localInvoke(local, 1, nonces[0])], counted),
      consumeTail([deployedInvoke(deployed, 1, 6, 20, {}, nonces[1])], counted),
    ]);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: "usage", reports: [{ execution_id: local }, { execution_id: deployed }] });
    await deliver(sent);
    expect((await read(local)).execution.resources).toEqual({
      cpu_ms: null,
      peak_memory_mb: null,
      cpu_report: "unmeasured",
    });
    expect((await read(deployed)).execution.resources).toEqual({
      cpu_ms: 6,
      peak_memory_mb: null,
      cpu_report: "measured",
    });
  });

  it("takes no report without the nonce the runtime sent with that attempt", async () => {
    const [target, own] = [await finishedExecution(), await finishedExecution()];
    const { env: counted, sent } = countingSends();
    // A provider's line naming another execution, with its own attempt's nonce, or with none.
    await consumeTail(
      [
        deployedInvoke(target, 1, 700, 800, {}, await attemptNonce(env, own, 1, caller.tenant)),
        deployedInvoke(target, 1, 700, 800),
      ],
      counted,
    );
    expect(sent).toHaveLength(0);
    expect((await read(target)).execution.resources.cpu_report).toBe("none");
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
