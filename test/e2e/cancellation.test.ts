import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExecutionView } from "../../src/contract.ts";
import { asAdmin, baseUrl, bearer, call, execute, ROOMY, sansIntent, sansLate } from "./http.ts";
import { egressOrigin, startLoopback, type Loopback } from "./loopback.ts";
import { hold, newLatch, release } from "./latch.ts";
import { collect, eventsUntil } from "./sse.ts";
import { tenant } from "./tenants.ts";

async function startAsync(body: Record<string, unknown>, key?: string): Promise<string> {
  const res = key
    ? await call("POST", "/v1/executions", { ...body, mode: "async" }, bearer(key))
    : await execute({ ...body, mode: "async" });
  expect(res.status).toBe(202);
  return res.body.execution_id;
}

async function until(id: string, test: (v: ExecutionView) => boolean, key?: string): Promise<ExecutionView> {
  for (let i = 0; i < 200; i++) {
    const view = (await call<ExecutionView>("GET", `/v1/executions/${id}`, undefined, key ? bearer(key) : {})).body;
    if (test(view)) return view;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("condition never held");
}

/** What lab.hold's holders of `latch` have done (lab.held): how often they looked at it, whether one returned. */
async function lookedAt(latch: string): Promise<{ polls: number; returned: boolean }> {
  const res = await call("POST", "/v1/executions", { tool: "lab.held", input: { latch }, limits: ROOMY });
  expect(res.status).toBe(200);
  return res.body.output;
}

const cancel = (id: string, body?: unknown, key?: string) =>
  call<ExecutionView>("POST", `/v1/executions/${id}/cancel`, body, key ? bearer(key) : {});
const newKey = async (t: string) =>
  (
    await asAdmin("POST", "/v1/admin/keys", {
      tenant: t,
      agent: "dev-agent",
      capabilities: ["network:*"],
      channels: ["*"],
    })
  ).body.key as string;

/** Requests the loopback server holds until the test lets them go. */
const held: { path: string; release: (body: string) => void }[] = [];
const arrivals: ((path: string) => void)[] = [];
let loopback: Loopback;
beforeAll(async () => {
  loopback = await startLoopback((req, _body, res) => {
    const path = req.url ?? "/";
    // Released once: by its test, or (if that test failed first) when the file ends.
    held.push({
      path,
      release: (body) => void (res.headersSent || res.writeHead(200, { "content-type": "text/plain" }).end(body)),
    });
    for (const arrived of arrivals.splice(0)) arrived(path);
  });
});
afterAll(async () => {
  for (const h of held.splice(0)) h.release("closing");
  await loopback?.close();
});

/** Resolves when the loopback server has a request for `path` (bounded). */
function arrival(path: string, withinMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no request for ${path} reached the loopback server`)), withinMs);
    const check = (p: string) => (p === path ? (clearTimeout(timer), resolve()) : arrivals.push(check));
    if (held.some((h) => h.path === path)) return check(path);
    arrivals.push(check);
  });
}

describe("cancellation (docs/contract.md#cancellation)", () => {
  it("stops demo.countdown cooperatively, keeping its partial output", async () => {
    // A minute and a half of counting: only the cancel ends it.
    const id = await startAsync({
      tool: "demo.countdown",
      input: { from: 900, interval_ms: 100 },
      limits: { timeout_ms: 120_000 },
    });
    // Cancelled once it has visibly counted twice.
    await eventsUntil(id, (events) => events.filter((e) => e.type === "partial").length >= 2);
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "cancelled",
      error: { code: "cancelled" },
      cancellation: { outcome: "cooperative" },
    });
    const counted = (res.body.partial_output as { counted: number[] }).counted;
    expect(counted.slice(0, 2)).toEqual([900, 899]);
    expect(counted.length).toBeLessThan(900);
    // The stream ends with the one terminal event, which says what happened.
    const events = await collect(id);
    expect(events.at(-1)).toMatchObject({
      type: "error",
      payload: { data: { status: "cancelled", cancellation: { outcome: "cooperative" } } },
    });
  });

  it("waits out the grace period for a tool that ignores the signal: one that returns within it ends cooperative", async () => {
    // lab.hold ignores its stop notice and returns once released; the grace period covers that.
    const latch = newLatch();
    const id = await startAsync({ ...hold(latch), limits: { timeout_ms: 60_000 } });
    await eventsUntil(id, (events) => events.some((e) => e.type === "partial"));
    const cancelling = cancel(id, { grace_ms: 30_000 });
    // Released once the notice has reached the handler: it returns inside the grace period.
    await release(latch, { afterStop: true });
    const res = await cancelling;
    expect(res.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "cooperative" } });
    // What it returned after the notice is kept as partial output (docs/contract.md#partial-output).
    expect(res.body.partial_output).toEqual({ released: true });
  });

  it("forces a tool that ignores the signal once the grace period is over: its invocation ends and its slot comes back at once", async () => {
    // A tenant that may run two executions: one slot for the stalled handler, one held by a
    // second holder that heeds cancellation and that this test lets run: the clock.
    const key = await newKey(tenant("slots"));
    const [stalled, clock] = [newLatch(), newLatch()];
    const id = await startAsync({ ...hold(stalled), limits: { timeout_ms: 60_000 } }, key);
    await eventsUntil(id, (events) => events.some((e) => e.type === "partial"), { key });
    const holder = await startAsync({ ...hold(clock, { heed_cancel: true }), limits: { timeout_ms: 60_000 } }, key);
    try {
      const res = await cancel(id, { grace_ms: 0 }, key);
      expect(res.body).toMatchObject({
        status: "cancelled",
        cancellation: { outcome: "forced" },
        partial_output: { holding: stalled },
      });
      // Its slot comes back with the end of its invocation, not when the handler would have
      // returned: a sync call with under a second of budget, which may not wait for a slot
      // (docs/contract.md#waiting), is admitted while the latch is still closed.
      const probe = { tool: "lab.echo", input: {}, limits: { timeout_ms: 900 } };
      let admitted = await call("POST", "/v1/executions", probe, bearer(key));
      for (let i = 0; i < 100 && admitted.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        admitted = await call("POST", "/v1/executions", probe, bearer(key));
      }
      expect(admitted.status).toBe(200);
      // Released, it neither looks at its latch again nor returns (and so sends nothing), while
      // the clock's holder looks at its own latch 30 more times.
      const before = await lookedAt(stalled);
      await release(stalled);
      await until(holder, (v) => v.status === "running", key);
      const clockFrom = (await lookedAt(clock)).polls;
      for (let i = 0; i < 300 && (await lookedAt(clock)).polls < clockFrom + 30; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect((await lookedAt(clock)).polls).toBeGreaterThanOrEqual(clockFrom + 30);
      const after = await lookedAt(stalled);
      expect(after.returned).toBe(false);
      expect(after.polls - before.polls).toBeLessThanOrEqual(1);
      // The record and the log are as the cancel left them.
      const events = await collect(id, { key });
      expect(events.map((e) => e.type)).toEqual(["start", "partial", "error"]);
      expect(sansIntent((await call("GET", `/v1/executions/${id}`, undefined, bearer(key))).body)).toEqual(
        sansIntent(res.body),
      );
    } finally {
      await release(stalled);
      await cancel(holder, { grace_ms: 0 }, key);
    }
  });

  it("answers a second cancel with the same record", async () => {
    const id = await startAsync({ ...hold(newLatch(), { heed_cancel: true }), limits: { timeout_ms: 60_000 } });
    await until(id, (v) => v.status === "running");
    const [first, second] = await Promise.all([cancel(id), cancel(id)]);
    const third = await cancel(id);
    expect(first.body.status).toBe("cancelled");
    expect(sansLate(second.body)).toEqual(sansLate(first.body));
    expect(sansLate(third.body)).toEqual(sansLate(first.body));
  });

  it("leaves a finished execution as it was and says already_finished", async () => {
    const done = await execute({ tool: "math.evaluate", input: { expression: "1+1" } });
    const res = await cancel(done.body.execution_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "succeeded",
      output: { value: 2 },
      cancellation: { outcome: "already_finished" },
    });
    const after = await call("GET", `/v1/executions/${done.body.execution_id}`);
    expect(sansLate(after.body)).toEqual(sansLate(done.body));
  });

  it("refuses an unknown id and a grace period over the maximum", async () => {
    expect((await cancel(`exec_${"c".repeat(64)}`)).status).toBe(404);
    const id = await startAsync({ tool: "demo.countdown", input: { from: 1, interval_ms: 0 } });
    const res = await cancel(id, { grace_ms: 3_600_000 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field: "grace_ms" } });
  });

  // A sync call with nobody observing it runs at the edge (the fast path); a keyed one runs in
  // its key's execution object. Either way the caller hanging up is not a cancel.
  it.each([
    ["at the edge", {}],
    ["in an execution object (keyed)", { idempotency_key: "gone-caller" }],
  ])("does not stop an execution when its sync caller goes away: %s", async (_where, extra) => {
    const key = await newKey(`gone-${crypto.randomUUID()}`);
    const path = `/hold/${crypto.randomUUID()}`;
    const caller = new AbortController();
    const pending = fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(key) },
      body: JSON.stringify({
        tool: "http.request",
        input: { url: `${egressOrigin}${path}` },
        limits: { timeout_ms: 30_000 },
        ...extra,
      }),
      signal: caller.signal,
    }).then(
      () => "answered",
      () => "aborted",
    );
    // The execution is running: its provider's request is at the loopback server. The caller goes.
    await arrival(path);
    caller.abort();
    expect(await pending).toBe("aborted");
    held.find((h) => h.path === path)!.release("released after the caller left");
    // The execution ran to its end anyway: the tenant's list shows it succeeded.
    let listed: any[] = [];
    for (let i = 0; i < 100; i++) {
      listed = (await call("GET", "/v1/executions?tool=http.request", undefined, bearer(key))).body.executions;
      if (listed.some((e) => e.status === "succeeded")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toEqual([expect.objectContaining({ status: "succeeded", mode: "sync" })]);
    const view = await call("GET", `/v1/executions/${listed[0].execution_id}`, undefined, bearer(key));
    expect(view.body).toMatchObject({
      status: "succeeded",
      output: { status_code: 200, body: "released after the caller left" },
    });
    expect(view.body.cancellation).toBeUndefined();
  });
});
