/**
 * Executions that wait (docs/contract.md#waiting), against the real stack: a tenant's queue (first come first
 * served, bounded, positions on GET and the stream, cancel before start), a provider's
 * max_concurrency (never exceeded, however many call at once), and a person's approval
 * (approve, reject, the window's timeout, and every wrong way to decide), on REST and Connect.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { describe, expect, it } from "vitest";
import { createClient as createRuntimeClient, ToolRuntimeError } from "../../client/index.ts";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { trt } from "./cli.ts";
import { asAdmin, baseUrl, bearer, call } from "./http.ts";
import { collect, type Received } from "./sse.ts";
import { tenant } from "./tenants.ts";

async function newKey(t: string, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await asAdmin("POST", "/v1/admin/keys", { tenant: t, agent: "dev-agent", channels: ["*"], ...fields });
  expect(res.status).toBe(201);
  return res.body.key;
}

const as = (key: string) => ({
  execute: (body: unknown) => call("POST", "/v1/executions", body, bearer(key)),
  get: (id: string) => call("GET", `/v1/executions/${id}`, undefined, bearer(key)),
  call: (method: string, path: string, body?: unknown) => call(method, path, body, bearer(key)),
});

/** Polls an execution until `ok`, bounded (no fixed sleep decides anything). */
async function until(key: string, id: string, ok: (v: any) => boolean, what: string, tries = 200): Promise<any> {
  let view: any;
  for (let i = 0; i < tries; i++) {
    view = (await as(key).get(id)).body;
    if (ok(view)) return view;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} never happened: ${JSON.stringify(view).slice(0, 300)}`);
}

const ended = (v: any) => ["succeeded", "failed", "cancelled", "timed_out"].includes(v.status);

describe("a tenant's queue", () => {
  it("runs 2 of 6 long async executions at once, queues 4 in order, starts each as another ends, and cancels a queued one before it starts", async () => {
    const key = await newKey(tenant("narrow")); // max_concurrent 2, max_queued 4
    // The first two hold their slots far longer than this test needs them (it ends them by
    // cancelling), so nothing moves in the queue until the test says so, however slow the machine.
    const long = (n: number) => ({
      tool: "lab.long",
      mode: "async",
      input: { ms: n < 2 ? 9_000 : 4_000 },
      limits: { timeout_ms: 10_000 },
      context: { n },
    });
    const accepted: any[] = [];
    for (let n = 0; n < 6; n++) accepted.push(await as(key).execute(long(n)));
    expect(accepted.map((a) => a.status)).toEqual([202, 202, 202, 202, 202, 202]);
    expect(accepted.map((a) => a.body.status)).toEqual(["running", "running", "queued", "queued", "queued", "queued"]);
    const ids: string[] = accepted.map((a) => a.body.execution_id);
    // GET shows each waiting one's place, in the order they came.
    const positions = [];
    for (const id of ids.slice(2)) positions.push((await as(key).get(id)).body);
    expect(positions.map((v) => [v.status, v.position])).toEqual([
      ["queued", 1],
      ["queued", 2],
      ["queued", 3],
      ["queued", 4],
    ]);
    // Past max_queued: refused, with when to try again.
    const refused = await as(key).execute(long(6));
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({
      code: "rate_limited",
      retryable: true,
      details: { reason: "queue_full", limit: 4 },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // A subscriber of the last one sees its place change, then its start.
    // (Its place is looked at about once a second, so the test lets it see each one before moving on.)
    const soFar: Received[] = [];
    const watched = collect(ids[5], { key, timeoutMs: 40_000, onEvent: (e) => soFar.push(e) });
    const told = async (position: number) => {
      for (let i = 0; i < 100 && !soFar.some((e) => e.type === "log" && e.payload.data.position === position); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(soFar.filter((e) => e.type === "log").map((e) => e.payload.data.position)).toContain(position);
    };
    // Cancelling a queued one ends it at once, before it starts: no provider is called.
    const cancelled = await as(key).call("POST", `/v1/executions/${ids[4]}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      status: "cancelled",
      cancellation: { outcome: "before_start" },
      error: { code: "cancelled" },
      execution: { started_ms: null, worker: null },
    });
    expect(cancelled.body.attempts).toBeUndefined();
    expect((await as(key).get(ids[5])).body.position).toBe(3);
    await told(3);

    // One holder ends: the first in line starts, the last moves up.
    await as(key).call("POST", `/v1/executions/${ids[0]}/cancel`);
    expect(await until(key, ids[2], (v) => v.status !== "queued", "the first waiter's start")).toMatchObject({
      status: "running",
    });
    expect(await until(key, ids[5], (v) => v.position === 2, "the last waiter moving up")).toMatchObject({
      status: "queued",
      position: 2,
    });
    await told(2);
    // The other ends: the next starts; the last is next in line until one of those two ends.
    await as(key).call("POST", `/v1/executions/${ids[1]}/cancel`);
    expect(await until(key, ids[3], (v) => v.status !== "queued", "the second waiter's start")).toMatchObject({
      status: "running",
    });

    const views = [];
    for (const id of ids) views.push(await until(key, id, ended, `the end of ${id}`));
    expect(views.map((v) => v.status)).toEqual([
      "cancelled",
      "cancelled",
      "succeeded",
      "succeeded",
      "cancelled",
      "succeeded",
    ]);
    // queued_ms is the time each waited.
    for (const v of [views[2], views[3], views[5]]) expect(v.execution.queued_ms).toBeGreaterThan(0);

    // From the streams (replayed after the end): when each ran. At most two at once, first come
    // first served, and every waiter started only once an earlier one had ended.
    const ran = [];
    for (const i of [0, 1, 2, 3, 5]) {
      const events = await collect(ids[i], { key });
      ran.push({ i, start: events.find((e) => e.type === "start")!.payload.at!, end: events.at(-1)!.payload.at! });
    }
    const starts = [...ran].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
    expect(starts.map((r) => r.i)).toEqual([0, 1, 2, 3, 5]);
    const ends = ran.map((r) => Date.parse(r.end)).sort((a, b) => a - b);
    starts.slice(2).forEach((r, k) => expect(Date.parse(r.start)).toBeGreaterThanOrEqual(ends[k]));

    const seen: Received[] = await watched;
    const logs = seen.filter((e) => e.type === "log").map((e) => e.payload.data);
    expect(logs.map((d) => d.position).filter(Boolean)).toEqual([4, 3, 2, 1]);
    const types = seen.map((e) => e.type);
    expect(types.slice(types.lastIndexOf("log") + 1)).toEqual(["start", "progress", "done"]);
  }, 60_000);

  it("lets a sync call wait for a slot too, its wait counted against its budget", async () => {
    const key = await newKey(tenant("narrow"));
    const holding = [];
    for (let i = 0; i < 2; i++)
      holding.push(
        (await as(key).execute({ tool: "lab.long", mode: "async", input: { ms: 800 }, limits: { timeout_ms: 10_000 } }))
          .body.execution_id,
      );
    const res = await as(key).execute({ tool: "lab.echo", input: { waited: true }, limits: { timeout_ms: 9_000 } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "succeeded", output: { waited: true } });
    expect(res.body.execution_id).toMatch(/^exec_[0-9a-f]{64}$/); // it waited in an object
    expect(res.body.execution.queued_ms).toBeGreaterThan(0);
    for (const id of holding) await until(key, id, ended, "the holders' end");
  });

  it("never delays another tenant", async () => {
    const full = await newKey(tenant("narrow"));
    const other = await newKey(tenant("narrow"));
    const ids = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await as(full).execute({
            tool: "lab.long",
            mode: "async",
            input: { ms: 5_000 },
            limits: { timeout_ms: 10_000 },
          })
        ).body.execution_id,
      );
    const res = await as(other).execute({
      tool: "lab.long",
      mode: "async",
      input: { ms: 10 },
      limits: { timeout_ms: 10_000 },
    });
    expect(res.body.status).toBe("running");
    for (const id of ids) await as(full).call("POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 });
  });
});

describe("a provider's max_concurrency", () => {
  it("never has two calls in flight at a provider of max_concurrency 1 under 20 concurrent callers", async () => {
    const key = await newKey(`gate-${crypto.randomUUID()}`);
    const patched = await asAdmin("PATCH", "/v1/admin/providers/lab", { max_concurrency: 1 });
    expect(patched.body).toMatchObject({ name: "lab", max_concurrency: 1 });
    try {
      // Every edge sees the new limit within the snapshot's TTL; a dry run says so.
      let dry: any;
      for (let i = 0; i < 100; i++) {
        dry = (await as(key).execute({ tool: "lab.gauge", mode: "dry_run", input: {} })).body;
        if (dry.ranking[0].max_concurrency === 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(dry).toMatchObject({
        provider: "lab",
        waits_for_capacity: false,
        ranking: [{ provider: "lab", max_concurrency: 1, in_flight: 0, room: true }],
      });
      expect(
        (await as(key).execute({ tool: "lab.gauge", input: { ms: 0, reset: true }, limits: { timeout_ms: 5_000 } }))
          .status,
      ).toBe(200);

      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          as(key).execute({ tool: "lab.gauge", input: { ms: 30 }, limits: { timeout_ms: 25_000 } }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(results.map((r) => r.body.output.in_flight_at_start)).toEqual(Array(20).fill(1));
      expect(Math.max(...results.map((r) => r.body.output.most_ever))).toBe(1);
      // Those that found it full waited in `scheduled`, in an object.
      expect(results.filter((r) => r.body.execution_id.length === 69).length).toBeGreaterThan(0);

      // A dry run while it is busy says the call would wait for it.
      const busy = await as(key).execute({
        tool: "lab.gauge",
        mode: "async",
        input: { ms: 5_000 },
        limits: { timeout_ms: 10_000 },
      });
      let waiting: any;
      for (let i = 0; i < 50; i++) {
        waiting = (await as(key).execute({ tool: "lab.gauge", mode: "dry_run", input: {} })).body;
        if (waiting.waits_for_capacity) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(waiting).toMatchObject({
        provider: "lab",
        waits_for_capacity: true,
        ranking: [{ provider: "lab", in_flight: 1, room: false }],
      });
      const queued = await as(key).execute({
        tool: "lab.gauge",
        mode: "async",
        input: { ms: 10 },
        limits: { timeout_ms: 10_000 },
      });
      expect((await as(key).get(queued.body.execution_id)).body).toMatchObject({ status: "scheduled", position: 1 });
      // A scheduled one cancelled ends at once, before it starts; the one ahead keeps its place.
      const extra = await as(key).execute({
        tool: "lab.gauge",
        mode: "async",
        input: { ms: 10 },
        limits: { timeout_ms: 10_000 },
      });
      expect((await as(key).get(extra.body.execution_id)).body).toMatchObject({ status: "scheduled", position: 2 });
      expect((await as(key).call("POST", `/v1/executions/${extra.body.execution_id}/cancel`)).body).toMatchObject({
        status: "cancelled",
        cancellation: { outcome: "before_start" },
        execution: { started_ms: null },
      });
      await until(key, busy.body.execution_id, ended, "the busy call's end");
      expect(await until(key, queued.body.execution_id, ended, "the scheduled call's end")).toMatchObject({
        status: "succeeded",
      });
    } finally {
      expect(
        (await asAdmin("PATCH", "/v1/admin/providers/lab", { max_concurrency: null })).body.max_concurrency,
      ).toBeUndefined();
    }
  });

  it("refuses a max_concurrency that is not a positive integer", async () => {
    for (const bad of [0, -1, 1.5, "2"]) {
      const res = await asAdmin("PATCH", "/v1/admin/providers/lab", { max_concurrency: bad });
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual({ field: "max_concurrency" });
    }
  });
});

describe("a person's approval", () => {
  const erase = (name: string, o: Record<string, unknown> = {}) => ({
    tool: "lab.erase",
    mode: "async",
    input: { name },
    limits: { timeout_ms: 10_000 },
    ...o,
  });
  const wasErased = async (key: string, name: string) =>
    (await as(key).execute({ tool: "lab.was_erased", input: { name }, limits: { timeout_ms: 5_000 } })).body.output
      .erased;

  it("holds a delete for an approver, who sees it, approves it, and is named in the audit record; the stream shows each step", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "alice", role: "approver" });
    const name = `thing-${crypto.randomUUID()}`;
    const started = await as(caller).execute(erase(name));
    expect(started.status).toBe(202);
    expect(started.body.status).toBe("awaiting_approval");
    const id = started.body.execution_id;
    const pending = (await as(caller).get(id)).body;
    expect(pending).toMatchObject({ status: "awaiting_approval", approval: { rule: "effect delete", decision: null } });
    expect(Date.parse(pending.approval.expires_at)).toBeGreaterThan(Date.now());
    const watched = collect(id, { key: caller, timeoutMs: 25_000 });

    // Without the role: nothing to see, nothing to decide, nothing changed.
    expect((await as(caller).call("GET", "/v1/approvals")).status).toBe(403);
    const notApprover = await as(caller).call("POST", `/v1/executions/${id}/approve`);
    expect(notApprover.status).toBe(403);
    expect(notApprover.body.error).toMatchObject({ code: "forbidden", details: { reason: "approver role required" } });
    // Another tenant's approver: it does not exist for them.
    const stranger = await newKey(tenant("approve"), { agent: "mallory", role: "approver" });
    expect((await as(stranger).call("GET", "/v1/approvals")).body.approvals).toEqual([]);
    expect((await as(stranger).call("POST", `/v1/executions/${id}/approve`)).status).toBe(404);
    expect((await as(caller).get(id)).body.status).toBe("awaiting_approval");

    const listed = await as(approver).call("GET", "/v1/approvals");
    expect(listed.status).toBe(200);
    expect(listed.body.approvals).toEqual([
      expect.objectContaining({
        execution_id: id,
        tool: "lab.erase",
        effects: "delete",
        agent: "dev-agent",
        rule: "effect delete",
        input: { name },
      }),
    ]);

    const approved = await as(approver).call("POST", `/v1/executions/${id}/approve`, { reason: "ticket 42" });
    expect(approved.status).toBe(200);
    expect(approved.body.approval.decision).toMatchObject({
      decision: "approved",
      approver: "alice",
      reason: "ticket 42",
    });
    const done = await until(caller, id, ended, "the approved erase's end");
    expect(done).toMatchObject({ status: "succeeded", output: { erased: name } });
    expect(await wasErased(caller, name)).toBe(true);
    expect((await as(approver).call("GET", "/v1/approvals")).body.approvals).toEqual([]);

    // Twice, or once it has finished: a clear error, nothing changed.
    const again = await as(approver).call("POST", `/v1/executions/${id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: "approval_not_pending",
      details: { status: "succeeded", decision: "approved" },
    });

    const steps = (await watched).map((e) =>
      e.type === "log" ? `log:${e.payload.data.approval ?? e.payload.data.waiting}` : e.type,
    );
    expect(steps).toEqual(["log:requested", "log:approved", ...steps.slice(2, -2), "start", "done"]);

    // The audit record names the approver, the decision and the reason.
    // It follows the audit queue, which another file's audit drill may hold back a while: 30 s by clock.
    let record: any;
    for (const deadline = Date.now() + 30_000; !record && Date.now() < deadline;) {
      record = (await asAdmin("GET", `/v1/audit?tenant=${t}`)).body.records?.find((r: any) => r.execution_id === id);
      if (!record) await new Promise((r) => setTimeout(r, 250));
    }
    expect(record?.approval, "the approved call's audit record").toMatchObject({
      decision: "approved",
      approver: "alice",
      reason: "ticket 42",
    });
  });

  it("ends a rejected call failed with approval_rejected; a rejection needs a reason; it never runs", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "bob", role: "approver" });
    const name = `thing-${crypto.randomUUID()}`;
    const id = (await as(caller).execute(erase(name))).body.execution_id;
    const noReason = await as(approver).call("POST", `/v1/executions/${id}/reject`, {});
    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details).toEqual({ field: "reason" });
    const rejected = await as(approver).call("POST", `/v1/executions/${id}/reject`, { reason: "wrong thing" });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: "failed",
      error: { code: "approval_rejected", details: { approver: "bob", reason: "wrong thing" } },
      approval: { decision: { decision: "rejected", approver: "bob", reason: "wrong thing" } },
      execution: { started_ms: null },
    });
    expect((await as(approver).call("POST", `/v1/executions/${id}/approve`)).body.error.code).toBe(
      "approval_not_pending",
    );
    expect(await wasErased(caller, name)).toBe(false);
  });

  it("fails a call nobody approved within the window with approval_expired; it never runs", async () => {
    const caller = await newKey(tenant("approve-brief")); // a 1.5 s window
    const name = `thing-${crypto.randomUUID()}`;
    const id = (await as(caller).execute(erase(name))).body.execution_id;
    const view = await until(caller, id, ended, "the window's end", 100);
    expect(view).toMatchObject({
      status: "failed",
      error: { code: "approval_expired", retryable: true },
      execution: { started_ms: null },
    });
    expect(await wasErased(caller, name)).toBe(false);
  });

  it("lets a sync caller wait for the approval and answers with the result", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "carol", role: "approver" });
    const name = `thing-${crypto.randomUUID()}`;
    const answer = as(caller).execute(erase(name, { mode: "sync", limits: { timeout_ms: 10_000 } }));
    let pending: any[] = [];
    for (let i = 0; i < 100 && pending.length === 0; i++) {
      pending = (await as(approver).call("GET", "/v1/approvals")).body.approvals;
      if (pending.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect((await as(approver).call("POST", `/v1/executions/${pending[0].execution_id}/approve`)).status).toBe(200);
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: "succeeded",
      output: { erased: name },
      approval: { decision: { approver: "carol" } },
    });
  });

  it("cancels a call awaiting approval before it starts, and takes it off the list", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "dave", role: "approver" });
    const id = (await as(caller).execute(erase(`thing-${crypto.randomUUID()}`))).body.execution_id;
    const cancelled = await as(caller).call("POST", `/v1/executions/${id}/cancel`);
    expect(cancelled.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "before_start" } });
    expect((await as(approver).call("GET", "/v1/approvals")).body.approvals).toEqual([]);
    expect((await as(approver).call("POST", `/v1/executions/${id}/approve`)).status).toBe(409);
  });

  it("shows the same states on Connect, and approves there too", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approver = await newKey(t, { agent: "erin", role: "approver" });
    const transport = (key: string) =>
      createConnectTransport({
        baseUrl,
        interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${key}`), next(req))],
      });
    const id = (await as(caller).execute(erase(`thing-${crypto.randomUUID()}`))).body.execution_id;
    const seen = await createClient(ToolRuntimeService, transport(caller)).getExecution({ executionId: id });
    expect(seen.status).toBe("awaiting_approval");
    const listed = await createClient(ToolRuntimeService, transport(approver)).listApprovals({});
    expect(listed.approvals.map((a) => a.execution_id)).toContain(id);
    const approved = await createClient(ToolRuntimeService, transport(approver)).approve({
      executionId: id,
      reason: "",
    });
    expect(["queued", "scheduled", "running", "succeeded"]).toContain(approved.status);
    expect(await until(caller, id, ended, "the end")).toMatchObject({ status: "succeeded" });
  });

  it("is answered from the typed client and from trt: approvals listed, approved, rejected with a reason", async () => {
    const t = tenant("approve");
    const caller = await newKey(t);
    const approverKey = await newKey(t, { agent: "frank", role: "approver" });
    const runtime = createRuntimeClient({ baseUrl, apiKey: approverKey });
    const one = (await as(caller).execute(erase(`thing-${crypto.randomUUID()}`))).body.execution_id;
    const two = (await as(caller).execute(erase(`thing-${crypto.randomUUID()}`))).body.execution_id;
    // The waiting call as trt shows it: what it waits for and how to let it run.
    const shown = await trt(["get", one], { env: { TRT_KEY: caller } });
    expect(shown.stdout).toContain("awaiting approval");
    expect(shown.stdout).toContain(`needs approval (rule: effect delete)`);
    expect(shown.stdout).toContain(`trt approve ${one}`);

    expect((await runtime.listApprovals()).approvals.map((a) => a.execution_id)).toEqual([one, two]);
    const listed = await trt(["approvals"], { env: { TRT_KEY: approverKey } });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${one} +lab\\.erase@1\\.0\\.0 +delete +dev-agent +\\S+ +effect delete +\\{`, "m"),
    );
    // Without the role, trt says the runtime refused (exit 3).
    expect((await trt(["approvals"], { env: { TRT_KEY: caller } })).code).toBe(3);
    // A rejection without a reason is a usage error: nothing sent.
    expect((await trt(["reject", two], { env: { TRT_KEY: approverKey } })).code).toBe(2);

    const approved = await trt(["approve", one, "--reason", "checked"], { env: { TRT_KEY: approverKey } });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/approved by frank at .*: checked \(rule: effect delete\)/);
    const rejected = await runtime.reject(two, "not this one");
    expect(rejected).toMatchObject({ status: "failed", error: { code: "approval_rejected" } });
    const twice = await runtime.approve(two).catch((e: unknown) => e);
    expect(twice).toBeInstanceOf(ToolRuntimeError);
    expect((twice as ToolRuntimeError).code).toBe("approval_not_pending");
    expect(await until(caller, one, ended, "the approved call's end")).toMatchObject({ status: "succeeded" });
  });

  it("asks nothing of tools its tenant's rule does not name", async () => {
    const caller = await newKey(tenant("approve"));
    const res = await as(caller).execute({ tool: "lab.echo", input: { plain: true }, limits: { timeout_ms: 5_000 } });
    expect(res.body).toMatchObject({ status: "succeeded", output: { plain: true } });
    expect(res.body.approval).toBeUndefined();
    const dry = await as(caller).execute({ tool: "lab.erase", mode: "dry_run", input: { name: "x" } });
    expect(dry.body.approval).toEqual({ rule: "effect delete", window_ms: 120_000 });
  });
});
