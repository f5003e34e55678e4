/**
 * What each attempt cost, on every face that carries it: the provider's own latency beside the
 * runtime's (docs/contract.md#delivery), and CPU time from the provider Workers' tail events (docs/contract.md#response
 * `resources`), written into the record after the fact.
 *
 * Under `wrangler dev` the platform reports every invocation with 0 ms of CPU and wall time, so
 * what runs here is the whole path of a report — the provider SDK's line, the runtime's tail
 * handler, the audit store and the execution object, every read merging it — ending in
 * `cpu_report: "unmeasured"`. The figure itself comes only from a deployed stack.
 */
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { asAdmin, baseUrl, bearer, call, CALLER_AUTH, DEV_KEY, execute, FILE_TENANT } from "./http.ts";
import { provided } from "./stack.ts";

const callerUrl = provided("callerUrl");
const ROOMY = { timeout_ms: 20_000 };

async function msgpack(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      accept: "application/msgpack",
      ...(body !== undefined ? { "content-type": "application/msgpack" } : {}),
      ...bearer(DEV_KEY),
    },
    ...(body !== undefined ? { body: encode(body) as BodyInit } : {}),
  });
  return { status: res.status, body: decode(new Uint8Array(await res.arrayBuffer())) };
}

async function viaRpc(path: string, params: Record<string, unknown>): Promise<any> {
  const q = new URLSearchParams(
    Object.entries(params).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]),
  );
  return (await fetch(`${callerUrl}${path}?${q}`, { headers: CALLER_AUTH })).json();
}

const connect = createClient(
  ToolRuntimeService,
  createConnectTransport({
    baseUrl,
    interceptors: [(next) => (req) => (req.header.set("authorization", bearer(DEV_KEY).authorization), next(req))],
  }),
);

/**
 * Reads until `done` says so, 100 ms apart, for at most 20 s: the report follows the call through
 * the tail handler and, for the audit store, the audit queue, which other files' load delays.
 */
async function readUntil<T>(read: () => Promise<T>, done: (t: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  let last = await read();
  while (!done(last) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

const reported = (resources: any) => resources?.cpu_report !== "none";
const UNMEASURED = { cpu_ms: null, peak_memory_mb: null, cpu_report: "unmeasured" };
const NOT_YET = { cpu_ms: null, peak_memory_mb: null, cpu_report: "none" };

async function auditRecord(id: string): Promise<any> {
  return readUntil(
    async () =>
      (await asAdmin("GET", `/v1/audit?tenant=${FILE_TENANT}&limit=100`)).body.records.find(
        (r: any) => r.execution_id === id,
      ),
    (r) => r !== undefined && reported(r.resources),
  );
}

describe("the provider's own latency beside the runtime's (docs/contract.md#delivery)", () => {
  const stall = { tool: "lab.stall", input: { ms: 40 }, limits: ROOMY };

  it("REST JSON, MessagePack and the audit record show it for each attempt", async () => {
    const [json, packed] = [await execute(stall), await msgpack("POST", "/v1/executions", stall)];
    for (const view of [json.body, packed.body]) {
      const [a] = view.attempts;
      // The handler waited 40 ms; its time is inside the runtime's view of the attempt.
      expect(a.provider_latency_ms).toBeGreaterThanOrEqual(40);
      expect(a.provider_latency_ms).toBeLessThanOrEqual(a.duration_ms);
    }
    const record = await auditRecord(json.body.execution_id);
    expect(record.attempts[0].provider_latency_ms).toBe(json.body.attempts[0].provider_latency_ms);
  });

  it("Workers RPC shows it too", async () => {
    const r = await viaRpc("/call", { tool: stall.tool, input: stall.input, options: { limits: ROOMY } });
    expect(r.ok).toBe(true);
    expect(r.value.attempts[0].provider_latency_ms).toBeGreaterThanOrEqual(40);
  });

  it("is null for an attempt the provider never answered", async () => {
    const res = await execute({ tool: "lab.stall", input: { ms: 5_000 }, limits: { timeout_ms: 300 } });
    expect(res.body.status).toBe("timed_out");
    expect(res.body.attempts.length).toBeGreaterThan(0);
    for (const a of res.body.attempts) expect(a.provider_latency_ms).toBeNull();
  });
});

describe(
  "CPU time from the provider Workers' tail events (docs/contract.md#response resources)",
  { timeout: 60_000 },
  () => {
    const echo = { tool: "lab.echo", input: { n: 1 }, limits: ROOMY };

    it("a sync answer has no report yet; GET by id shows it once it has arrived, in JSON and MessagePack, and so does the audit record", async () => {
      const res = await execute(echo);
      expect(res.body.execution.resources).toEqual(NOT_YET);
      expect(res.body.attempts[0].cpu_ms).toBeNull();
      const id = res.body.execution_id;
      const view = await readUntil(
        async () => (await call("GET", `/v1/executions/${id}`)).body,
        (v) => reported(v.execution.resources),
      );
      expect(view.execution.resources).toEqual(UNMEASURED);
      expect(view.attempts[0]).toMatchObject({ attempt: 1, cpu_ms: null, provider_latency_ms: expect.any(Number) });
      expect((await msgpack("GET", `/v1/executions/${id}`)).body.execution.resources).toEqual(UNMEASURED);
      expect((await auditRecord(id)).resources).toEqual(UNMEASURED);
    });

    it("an execution with its own object (async) gets its report there, seen by REST and Connect", async () => {
      const started = await execute({ ...echo, mode: "async" });
      const id = started.body.execution_id;
      const view = await readUntil(
        async () => (await call("GET", `/v1/executions/${id}`)).body,
        (v) => v.status === "succeeded" && reported(v.execution.resources),
      );
      expect(view.execution.resources).toEqual(UNMEASURED);
      const m = await connect.getExecution({ executionId: id });
      expect((m.execution as Record<string, unknown>).resources).toEqual(UNMEASURED);
      expect((await auditRecord(id)).resources).toEqual(UNMEASURED);
    });

    it("Workers RPC: the answer has no report yet, getExecution shows it later", async () => {
      const r = await viaRpc("/call", { tool: echo.tool, input: echo.input, options: { limits: ROOMY } });
      expect(r.value.execution.resources).toEqual(NOT_YET);
      const later = await readUntil(
        () => viaRpc("/get", { id: r.value.execution_id }),
        (g) => reported(g.value?.execution.resources),
      );
      expect(later.value.execution.resources).toEqual(UNMEASURED);
    });

    it("Connect: the answer to Invoke has no report yet", async () => {
      const m = await connect.invoke({
        tool: echo.tool,
        input: echo.input as JsonObject,
        limits: { timeoutMs: ROOMY.timeout_ms },
      });
      expect((m.execution as Record<string, unknown>).resources).toEqual(NOT_YET);
      expect(toJson(ValueSchema, m.output!)).toEqual(echo.input);
    });
  },
);
