/** docs/contract.md#idempotency and docs/contract.md#retries against the real stack: idempotency keys, and the retry engine. */
import { describe, expect, it } from "vitest";
import { asAdmin, baseUrl, bearer, call, DEV_KEY, execute, ROOMY, type Answer } from "./http.ts";
import { hold, newLatch, release } from "./latch.ts";
import { readSse } from "./sse.ts";
import { tenant } from "./tenants.ts";

const unique = (what: string) => `${what}-${crypto.randomUUID()}`;

async function rawPost(body: unknown, key = DEV_KEY): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${baseUrl}/v1/executions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("idempotency keys", () => {
  it("turns 20 concurrent identical requests into one execution and one dispatch (200: test/load/)", async () => {
    const counter = unique("count");
    const body = {
      tool: "lab.flaky",
      input: { key: counter, delay_ms: 300 },
      idempotency_key: unique("key"),
      limits: { timeout_ms: 30_000 },
    };
    // Every keyed request takes a token of its tenant's rate, a duplicate too: a roomy tenant.
    const minted = await asAdmin("POST", "/v1/admin/keys", {
      tenant: tenant("roomy"),
      agent: "dev-agent",
      channels: ["*"],
      capabilities: ["network:*"],
    });
    expect(minted.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 20 }, () => rawPost(body, minted.body.key)));
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    const ids = new Set(answers.map((a) => JSON.parse(a.text).execution_id));
    expect(ids.size).toBe(1);
    expect(answers.every((a) => JSON.parse(a.text).output.calls === 1)).toBe(true);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true").length).toBe(19);
    // Counted at the provider: the next call for this counter is its second, not its 21st.
    const next = await execute({ tool: "lab.flaky", input: { key: counter } });
    expect(next.body.output).toEqual({ calls: 2 });
  });

  it("replays a finished execution byte for byte, failures included", async () => {
    const ok = { tool: "math.evaluate", input: { expression: "1 / 4" }, idempotency_key: unique("key"), limits: ROOMY };
    const [first, again] = [await rawPost(ok), await rawPost(ok)];
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const failing = { tool: "lab.bad_output", input: {}, idempotency_key: unique("key"), limits: ROOMY };
    const [f1, f2] = [await rawPost(failing), await rawPost(failing)];
    expect(f1.status).toBe(502);
    expect(f2.status).toBe(502);
    expect(f2.text).toBe(f1.text);
  });

  it("refuses the same key with a different request (409), creating nothing", async () => {
    const key = unique("key");
    const first = await execute({ tool: "math.evaluate", input: { expression: "2+2" }, idempotency_key: key });
    const other = await execute({ tool: "math.evaluate", input: { expression: "3+3" }, idempotency_key: key });
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({
      code: "idempotency_conflict",
      details: { execution_id: first.body.execution_id },
    });
    expect((await call("GET", `/v1/executions/${first.body.execution_id}`)).body.output).toEqual({ value: 4 });
  });

  it("gives the same key from another tenant its own execution", async () => {
    const key = unique("key");
    const other = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: unique("other"), agent: "dev-agent", channels: ["*"] })
    ).body.key;
    const mine = await execute({ tool: "math.evaluate", input: { expression: "5" }, idempotency_key: key });
    const theirs = await call(
      "POST",
      "/v1/executions",
      { tool: "math.evaluate", input: { expression: "5" }, idempotency_key: key, limits: ROOMY },
      bearer(other),
    );
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.execution_id).not.toBe(mine.body.execution_id);
  });

  it("attaches a duplicate to a running execution, and replays its event log as a stream", async () => {
    // Held until released, so the duplicate finds it running however slow the machine is.
    const latch = newLatch();
    // The same limits on every send, raw fetch included: a key names one request.
    const body = { ...hold(latch), mode: "async", idempotency_key: unique("key"), limits: ROOMY };
    let events: Awaited<ReturnType<typeof readSse>>;
    let released = false;
    try {
      const started = await execute(body);
      const duplicate = await execute(body);
      expect([started.status, duplicate.status]).toEqual([202, 202]);
      expect(duplicate.body.execution_id).toBe(started.body.execution_id);
      expect(duplicate.headers.get("idempotent-replayed")).toBe("true");
      const view = await call("GET", `/v1/executions/${started.body.execution_id}`);
      expect(view.body.status).toBe("running");
      const streamed = fetch(`${baseUrl}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
        body: JSON.stringify({ ...body, stream: true }),
      });
      await release(latch);
      released = true;
      events = await readSse(await streamed);
    } finally {
      if (!released) await release(latch);
    }
    expect(events[0].type).toBe("start");
    expect(events.at(-1)!.type).toBe("done");
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  });

  it("does not claim the key when the request fails before an execution exists", async () => {
    const key = unique("key");
    const invalid = await execute({ tool: "math.evaluate", input: { expr: "1" }, idempotency_key: key });
    expect(invalid.status).toBe(400);
    const valid = await execute({ tool: "math.evaluate", input: { expression: "7" }, idempotency_key: key });
    expect(valid.status).toBe(200);
    expect(valid.headers.get("idempotent-replayed")).toBeNull();
  });

  it("lets the key start a new execution, under a new id, once its TTL has passed", async () => {
    // A tenant of the "narrow" family keeps keys for 2 s (test/e2e/tenants.ts).
    const narrow = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: tenant("narrow"), agent: "dev-agent", channels: ["*"] })
    ).body.key;
    const counter = unique("count");
    const body = { tool: "lab.flaky", input: { key: counter }, idempotency_key: unique("key"), limits: ROOMY };
    const first = await call("POST", "/v1/executions", body, bearer(narrow));
    const replay = await call("POST", "/v1/executions", body, bearer(narrow));
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.execution_id).toBe(first.body.execution_id);
    expect([first.body.output.calls, replay.body.output.calls]).toEqual([1, 1]);
    const fresh = await afterTtl(() => call("POST", "/v1/executions", body, bearer(narrow)));
    expect(fresh.body.execution_id).not.toBe(first.body.execution_id);
    expect(fresh.body.output).toEqual({ calls: 2 });
    // The key now names the new execution; the old id still answers with its own result.
    const again = await call("POST", "/v1/executions", body, bearer(narrow));
    expect([again.headers.get("idempotent-replayed"), again.body.execution_id]).toEqual([
      "true",
      fresh.body.execution_id,
    ]);
    expect(
      (await call("GET", `/v1/executions/${first.body.execution_id}`, undefined, bearer(narrow))).body.output,
    ).toEqual({ calls: 1 });
  });

  it("replays the original answer after the provider's breaker has opened", async () => {
    // lab.route on lab-twin alone (named), then lab-twin's breaker opened by crashing calls
    // (its own breaker: 3 failures; routing.test.ts does the same), then the same keyed request.
    const body = {
      tool: "lab.route",
      provider: "lab-twin",
      input: {},
      idempotency_key: unique("key"),
      limits: { timeout_ms: 20_000 },
    };
    try {
      const first = await rawPost(body);
      expect(first.status).toBe(200);
      expect(JSON.parse(first.text).output).toEqual({ served_by: "lab-twin" });
      await execute({
        tool: "lab.route",
        provider: "lab-twin",
        input: { crash: true },
        limits: { timeout_ms: 20_000 },
      });
      const offering = (await call("GET", "/v1/tools/lab.route")).body.versions[0].providers.find(
        (p: { provider: string }) => p.provider === "lab-twin",
      );
      expect(offering.breaker).toBe("open");
      // Unkeyed, the same request is refused now: the only provider it names is circuit-broken.
      const { idempotency_key: _, ...unkeyed } = body;
      expect((await execute(unkeyed)).status).toBe(503);
      const replay = await rawPost(body);
      expect(replay.status).toBe(200);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.text).toBe(first.text);
    } finally {
      expect((await asAdmin("DELETE", "/v1/admin/providers/lab-twin/health")).status).toBe(200);
    }
  });
});

/**
 * Sends a keyed request until it is answered by a new execution rather than replayed: the
 * key's TTL has passed (bounded: the narrow family's 2 s TTL, and then some).
 */
async function afterTtl(send: () => Promise<Answer>, withinMs = 15_000): Promise<Answer> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await send();
    if (res.headers.get("idempotent-replayed") !== "true") return res;
    if (Date.now() > deadline) throw new Error(`still replayed after ${withinMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("a key reused after its TTL", () => {
  it("starts clean: a new execution under a new id, with nothing of the cancelled first one", async () => {
    const narrow = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: tenant("narrow"), agent: "dev-agent", channels: ["*"] })
    ).body.key;
    // The first runs until released, so the cancel finds it running; the second, the same request, runs once released.
    const latch = newLatch();
    const body = { ...hold(latch), mode: "async", idempotency_key: unique("key"), limits: { timeout_ms: 30_000 } };
    const first = await call("POST", "/v1/executions", body, bearer(narrow));
    try {
      expect(
        (await call("POST", `/v1/executions/${first.body.execution_id}/cancel`, { grace_ms: 0 }, bearer(narrow))).body
          .status,
      ).toBe("cancelled");
    } finally {
      await release(latch);
    }
    const second = await afterTtl(() => call("POST", "/v1/executions", body, bearer(narrow)));
    expect(second.status).toBe(202);
    expect(second.body.execution_id).not.toBe(first.body.execution_id);
    let view: any;
    for (let i = 0; i < 100; i++) {
      view = (await call("GET", `/v1/executions/${second.body.execution_id}`, undefined, bearer(narrow))).body;
      if (view.status !== "running") break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(view).toMatchObject({ status: "succeeded", output: { released: true } });
    expect(view.cancellation).toBeUndefined();
    expect(
      (await call("GET", `/v1/executions/${first.body.execution_id}`, undefined, bearer(narrow))).body,
    ).toMatchObject({ status: "cancelled" });
  });
});

describe("the retry engine", () => {
  it("retries an idempotent tool that fails twice and ends succeeded with three attempts", async () => {
    const res = await execute({
      tool: "lab.flaky",
      input: { key: unique("flaky"), fail_times: 2 },
      limits: { timeout_ms: 20_000 },
    });
    expect(res.status).toBe(200);
    expect(res.body.output).toEqual({ calls: 3 });
    expect(res.body.attempts.map((a: { outcome: string }) => a.outcome)).toEqual([
      "provider_crashed",
      "provider_crashed",
      "succeeded",
    ]);
    for (const a of res.body.attempts)
      expect(a).toMatchObject({ provider: "lab", started_ms: expect.any(Number), duration_ms: expect.any(Number) });
  });

  it("shows each retry in the stream as a log event", async () => {
    const res = await fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
      body: JSON.stringify({
        tool: "lab.flaky",
        stream: true,
        input: { key: unique("flaky"), fail_times: 1 },
        limits: { timeout_ms: 20_000 },
      }),
    });
    const events = await readSse(res);
    const logs = events.filter((e) => e.type === "log");
    expect(logs).toHaveLength(1);
    expect(logs[0].payload.data).toMatchObject({ attempt: 1, code: "provider_crashed" });
    expect(events.at(-1)!.type).toBe("done");
  });

  it("does not retry a tool that is not idempotent, and says so truthfully", async () => {
    const res = await execute({ tool: "lab.crash", input: {} });
    expect(res.body.attempts).toHaveLength(1);
    expect(res.body.error).toMatchObject({ code: "provider_crashed", retryable: false });
  });

  it("stops retrying when the caller's budget runs out, before max_attempts", async () => {
    // Each attempt takes 3 s then fails; the budget is 4.5 s: the second attempt gets what is
    // left after the first and its backoff, runs out, and no third one starts (max_attempts 3).
    const res = await execute({
      tool: "lab.flaky",
      input: { key: unique("flaky"), fail_times: 10, delay_ms: 3_000 },
      limits: { timeout_ms: 4_500 },
    });
    expect(res.body.status).toBe("timed_out");
    expect(res.body.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(["provider_crashed", "timeout"]);
  });
});
