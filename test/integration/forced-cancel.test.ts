/**
 * A forced cancel ends the provider's invocation (docs/contract.md#cancellation): the execution
 * object calls the provider through a relay whose invocation ends when the attempt is abandoned
 * (src/execution/provider-relay.ts), and workerd then ends the provider's. The handler is
 * `lab.hold`, which ignores its stop notice and looks at its latch about every 20 ms; `lab.held`
 * counts those looks in the lab's isolate. A second holder, never cancelled, is the clock: while
 * it looks 30 more times, the abandoned one may look at most once more (a look already under way).
 * The provider's permit (max_concurrency) and the tenant's slot come back at once.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Caller, ExecutionView } from "../../src/contract.ts";
import { executionScope } from "../../src/auth/roles.ts";
import { traceFrom } from "../../src/audit/trace.ts";
import type { ExecutionPlan } from "../../src/execution/execution-plan.ts";
import { newObjectExecutionId, objectStub } from "../../src/execution/ids.ts";
import { parseExecutionRequest } from "../../src/pipeline/initiation.ts";
import { planExecution } from "../../src/pipeline/plan.ts";
import { send } from "./worker-http.ts";

const newCaller = (): Caller => ({
  tenant: `forced-${crypto.randomUUID()}`,
  agent: "tester",
  capabilities: [],
  channels: ["*"],
});

/** An async lab.hold on `latch` for `caller`, with one slot for the tenant and, at `provider`, one permit. */
async function holdPlan(caller: Caller, latch: string, provider: string): Promise<ExecutionPlan> {
  const request = parseExecutionRequest({
    tool: "lab.hold",
    mode: "async",
    input: { latch, max_ms: 60_000 },
    limits: { timeout_ms: 60_000 },
  });
  const planned = (
    await planExecution(env, caller, request, {
      acceptedAt: Date.now(),
      trace: traceFrom(undefined),
      face: "rest",
      executionId: newObjectExecutionId(env),
    })
  ).plan;
  return {
    ...planned,
    limits: { ...planned.limits, max_concurrent: 1, max_queued: 10 },
    providers: [{ ...planned.providers[0], provider, max_concurrency: 1 }],
  };
}

const gateOf = (provider: string) => env.PROVIDER_GATES.get(env.PROVIDER_GATES.idFromName(provider));
const tenantOf = (caller: Caller) => env.TENANTS.get(env.TENANTS.idFromName(caller.tenant));
const view = (caller: Caller, id: string) =>
  objectStub(env, id).view(executionScope(caller)) as Promise<ExecutionView | null>;

async function start(p: ExecutionPlan): Promise<void> {
  const answer = await objectStub(env, p.execution_id).start(p, "accepted");
  if (!answer.ok) throw new Error(`refused: ${answer.error.code}`);
}

/** What the lab saw of `latch`'s holders (lab.held, a plain call of the dev tenant). */
async function held(latch: string): Promise<{ polls: number; returned: boolean }> {
  const res = await send(env, "POST", "/v1/executions", env.DEV_API_KEY, {
    tool: "lab.held",
    input: { latch },
    limits: { timeout_ms: 10_000 },
  });
  expect(res.status).toBe(200);
  return res.json.output;
}

async function release(latch: string): Promise<void> {
  const res = await send(env, "POST", "/v1/executions", env.DEV_API_KEY, {
    tool: "lab.release",
    input: { latch },
    limits: { timeout_ms: 10_000 },
  });
  expect(res.json.output).toEqual({ released: latch });
}

/** Polls `done` until it holds, at most `polls` times. */
async function until(done: () => Promise<boolean>, polls = 300): Promise<boolean> {
  for (let i = 0; i < polls; i++) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

describe("a forced cancel", () => {
  it("ends the provider's invocation: no look at its latch after the force, no return once released; its permit and slot come back at once", async () => {
    const caller = newCaller();
    const provider = `forced-gate-${crypto.randomUUID()}`;
    const latch = `forced-${crypto.randomUUID()}`;
    const clockLatch = `clock-${crypto.randomUUID()}`;
    const p = await holdPlan(caller, latch, provider);
    const clock = await holdPlan(newCaller(), clockLatch, `clock-gate-${crypto.randomUUID()}`);
    try {
      await start(p);
      await start(clock);
      expect(await until(async () => (await held(latch)).polls >= 2 && (await held(clockLatch)).polls >= 2)).toBe(true);
      expect(await gateOf(provider).load()).toEqual({ in_flight: 1, waiting: 0 });
      expect(await tenantOf(caller).running()).toBe(1);

      const ended = await objectStub(env, p.execution_id).cancel(executionScope(caller), 50);
      expect(ended).toMatchObject({ status: "cancelled", cancellation: { outcome: "forced" } });
      const from = (await held(latch)).polls;

      // The permit and the slot: back as soon as the relay has answered (before, only when the
      // handler returned, or a minute after the end).
      expect(await until(async () => (await gateOf(provider).load()).in_flight === 0)).toBe(true);
      expect(await until(async () => (await tenantOf(caller).running()) === 0)).toBe(true);

      // The handler: not one more look while the clock looks 30 more times.
      const clockFrom = (await held(clockLatch)).polls;
      expect(await until(async () => (await held(clockLatch)).polls >= clockFrom + 30)).toBe(true);
      expect((await held(latch)).polls - from).toBeLessThanOrEqual(1);

      // Released together, only the clock returns.
      await release(latch);
      await release(clockLatch);
      expect(await until(async () => (await held(clockLatch)).returned)).toBe(true);
      expect(await held(latch)).toMatchObject({ returned: false });
      expect((await view(caller, p.execution_id))?.status).toBe("cancelled");
    } finally {
      await release(latch);
      await release(clockLatch);
    }
  });
});
