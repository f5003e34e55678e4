/**
 * Every 429 and 503 says when to try again, on every face, refusals and ended executions alike
 * (src/retry-after.ts): `Retry-After` in whole seconds where there are headers (REST in JSON and
 * MessagePack, Connect, MCP over HTTP), `details.retry_after_ms` everywhere (RPC has only that).
 *
 * The 429: a `limited-*` tenant (1 call a second, a burst of 3) sends calls until one is refused.
 * The ended 503: a `narrow-*` tenant's two slots are held by long calls, so a sync call waits in
 * the queue until its budget is gone and ends `overloaded` — an execution, with an id.
 * The refused 503: every provider of lab.route disabled (`no_healthy_provider`), restored after.
 */
import { decode, encode } from "@msgpack/msgpack";
import { afterEach, describe, expect, it } from "vitest";
import { asAdmin, baseUrl, bearer, call, CALLER_AUTH, ROOMY } from "./http.ts";
import { modern } from "./mcp.ts";
import { tenant } from "./tenants.ts";
import { provided } from "./stack.ts";

const callerUrl = provided("callerUrl");
const ROUTE_PROVIDERS = ["lab-broken", "lab-twin", "lab"];
const CONNECT = `${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`;

async function newKey(t: string): Promise<string> {
  const res = await asAdmin("POST", "/v1/admin/keys", { tenant: t, agent: "dev-agent", channels: ["*"] });
  expect(res.status).toBe(201);
  return res.body.key;
}

/** A whole number of seconds, at least 1, that covers `ms` (the rule's rounding). */
function expectRetryAfter(header: string | null, ms: unknown): void {
  expect(header).toMatch(/^[1-9]\d*$/);
  expect(typeof ms).toBe("number");
  expect(Number(header)).toBe(Math.max(1, Math.ceil((ms as number) / 1000)));
}

/** Sends `attempt` until it answers `refused` (bounded: the limited family's burst is 3). */
async function untilRefused<T>(attempt: () => Promise<T>, refused: (a: T) => boolean): Promise<T> {
  for (let i = 0; i < 12; i++) {
    const a = await attempt();
    if (refused(a)) return a;
  }
  throw new Error("never rate limited in 12 calls");
}

/** A narrow tenant whose two slots are both taken by running calls; they are cancelled after `use`. */
async function withFullTenant(use: (key: string) => Promise<void>): Promise<void> {
  const key = await newKey(tenant("narrow"));
  const holders: string[] = [];
  try {
    for (let i = 0; i < 2; i++) {
      const started = await call(
        "POST",
        "/v1/executions",
        { tool: "lab.long", mode: "async", input: { ms: 9_000 }, limits: { timeout_ms: 10_000 } },
        bearer(key),
      );
      expect(started.status).toBe(202);
      holders.push(started.body.execution_id);
    }
    for (const id of holders) {
      let status = "";
      for (let i = 0; i < 100 && status !== "running"; i++) {
        status = (await call("GET", `/v1/executions/${id}`, undefined, bearer(key))).body.status;
        if (status !== "running") await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe("running");
    }
    await use(key);
  } finally {
    for (const id of holders) await call("POST", `/v1/executions/${id}/cancel`, { grace_ms: 0 }, bearer(key));
  }
}

/** A sync call that can only wait for a slot: 1.5 s of budget (≥ 1 s, so it waits rather than being refused). */
const WAITS = { tool: "lab.echo", input: { n: 1 }, limits: { timeout_ms: 1_500 } };

async function msgpackCall(key: string, body: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(`${baseUrl}/v1/executions`, {
    method: "POST",
    headers: { "content-type": "application/msgpack", accept: "application/msgpack", ...bearer(key) },
    body: encode(body),
  });
  expect(res.headers.get("content-type")).toBe("application/msgpack");
  return { status: res.status, headers: res.headers, body: decode(new Uint8Array(await res.arrayBuffer())) };
}

async function connectInvoke(key: string, body: unknown): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(CONNECT, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(key) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe("a 429 refusal says when, on every face", () => {
  it("REST JSON: Retry-After and details.retry_after_ms", async () => {
    const key = await newKey(tenant("limited"));
    const res = await untilRefused(
      () =>
        call(
          "POST",
          "/v1/executions",
          { tool: "math.evaluate", input: { expression: "1" }, limits: ROOMY },
          bearer(key),
        ),
      (r) => r.status === 429,
    );
    expect(res.body.error.code).toBe("rate_limited");
    expectRetryAfter(res.headers.get("retry-after"), res.body.error.details.retry_after_ms);
  });

  it("REST MessagePack: the same header on the same route", async () => {
    const key = await newKey(tenant("limited"));
    const res = await untilRefused(
      () => msgpackCall(key, { tool: "math.evaluate", input: { expression: "1" }, limits: ROOMY }),
      (r) => r.status === 429,
    );
    expect(res.body.error.code).toBe("rate_limited");
    expectRetryAfter(res.headers.get("retry-after"), res.body.error.details.retry_after_ms);
  });

  it("Connect: resource_exhausted (HTTP 429) with Retry-After among the error's headers", async () => {
    const key = await newKey(tenant("limited"));
    const res = await untilRefused(
      () => connectInvoke(key, { tool: "math.evaluate", input: { expression: "1" }, limits: { timeoutMs: 20_000 } }),
      (r) => r.status === 429,
    );
    expect(res.body.code).toBe("resource_exhausted");
    expect(res.headers.get("trt-error-code")).toBe("rate_limited");
    expectRetryAfter(res.headers.get("retry-after"), JSON.parse(res.headers.get("trt-error-details")!).retry_after_ms);
  });

  it("MCP: the JSON-RPC error (-32029) comes with Retry-After on its HTTP answer", async () => {
    const key = await newKey(tenant("limited"));
    const res = await untilRefused(
      () =>
        modern(
          "tools/call",
          { name: "math.evaluate", arguments: { expression: "1" }, _meta: { "io.tool-runtime/limits": ROOMY } },
          { key },
        ),
      (r) => r.body?.error?.code === -32029,
    );
    expect(res.status).toBe(200);
    expect(res.body.error.data.error.code).toBe("rate_limited");
    expectRetryAfter(res.headers.get("retry-after"), res.body.error.data.error.details.retry_after_ms);
  });
});

describe("an execution that ends 503 says when, on every face", () => {
  it("REST JSON: the sync answer is 503 with Retry-After; GET of the ended execution is 200 without it", async () => {
    await withFullTenant(async (key) => {
      const res = await call("POST", "/v1/executions", WAITS, bearer(key));
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        execution_id: expect.stringMatching(/^exec_/),
        status: "failed",
        error: { code: "overloaded", details: { reason: "queue_wait" } },
      });
      expectRetryAfter(res.headers.get("retry-after"), res.body.error.details.retry_after_ms);
      // Reading a finished execution succeeds: its record, 200, and nothing to retry.
      const read = await call("GET", `/v1/executions/${res.body.execution_id}`, undefined, bearer(key));
      expect([read.status, read.body.error.code, read.headers.get("retry-after")]).toEqual([200, "overloaded", null]);
    });
  }, 60_000);

  it("REST MessagePack: the same 503 and header", async () => {
    await withFullTenant(async (key) => {
      const res = await msgpackCall(key, WAITS);
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({ status: "failed", error: { code: "overloaded" } });
      expectRetryAfter(res.headers.get("retry-after"), res.body.error.details.retry_after_ms);
    });
  }, 60_000);

  it("Connect: the Execution message with its error, and Retry-After on the answer", async () => {
    await withFullTenant(async (key) => {
      const res = await connectInvoke(key, {
        tool: WAITS.tool,
        input: WAITS.input,
        limits: { timeoutMs: WAITS.limits.timeout_ms },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: "failed", error: { code: "overloaded" } });
      expectRetryAfter(res.headers.get("retry-after"), res.body.error.details.retry_after_ms);
    });
  }, 60_000);

  it("MCP: the isError result, and Retry-After on its HTTP answer", async () => {
    await withFullTenant(async (key) => {
      const res = await modern(
        "tools/call",
        { name: WAITS.tool, arguments: WAITS.input, _meta: { "io.tool-runtime/limits": WAITS.limits } },
        { key },
      );
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ isError: true, structuredContent: { error: { code: "overloaded" } } });
      expectRetryAfter(res.headers.get("retry-after"), res.body.result.structuredContent.error.details.retry_after_ms);
    });
  }, 60_000);
});

describe("a 503 refusal (no healthy provider) says when", () => {
  afterEach(async () => {
    for (const name of ROUTE_PROVIDERS) await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: false });
  });

  it("REST JSON and MessagePack: Retry-After; RPC through the example caller: details.retry_after_ms", async () => {
    const key = await newKey(`ra-${crypto.randomUUID()}`);
    for (const name of ROUTE_PROVIDERS)
      expect((await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: true })).status).toBe(200);
    const json = await call("POST", "/v1/executions", { tool: "lab.route", input: {}, limits: ROOMY }, bearer(key));
    expect([json.status, json.body.error.code]).toEqual([503, "no_healthy_provider"]);
    expectRetryAfter(json.headers.get("retry-after"), json.body.error.details.retry_after_ms);
    const mp = await msgpackCall(key, { tool: "lab.route", input: {}, limits: ROOMY });
    expect([mp.status, mp.body.error.code]).toEqual([503, "no_healthy_provider"]);
    expectRetryAfter(mp.headers.get("retry-after"), mp.body.error.details.retry_after_ms);

    const q = new URLSearchParams({ tool: "lab.route", input: "{}", options: JSON.stringify({ limits: ROOMY }) });
    const rpc = (await (await fetch(`${callerUrl}/call?${q}`, { headers: CALLER_AUTH })).json()) as any;
    expect(rpc).toMatchObject({ ok: false, error: { code: "no_healthy_provider", retryable: true } });
    expect(rpc.error.details.retry_after_ms).toBeGreaterThanOrEqual(1_000);
  });
});
