/**
 * One execution service, every face (docs/contract.md#faces): the same table of cases —
 * success, refusals, failures, a replay, a cancel — through REST in JSON, REST in
 * MessagePack, Workers RPC (through the example caller Worker) and Connect, and the answers
 * compared. Faces may encode differently; what they say must be the same.
 */
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { decode, encode } from "@msgpack/msgpack";
import { describe, expect, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { baseUrl, bearer, call, CALLER_AUTH, DEV_KEY } from "./http.ts";
import { eventsUntil } from "./sse.ts";
import { provided } from "./stack.ts";

const callerUrl = provided("callerUrl");
const ROOMY = { timeout_ms: 20_000 };

/** What a face said, in face-neutral words. */
interface Said {
  refused: boolean;
  status?: string;
  code?: string;
  retryable?: boolean;
  tool_code?: unknown;
  output?: unknown;
  crash_ref?: boolean;
}

function fromView(view: any): Said {
  return {
    refused: false,
    status: view.status,
    code: view.error?.code,
    retryable: view.error?.retryable,
    tool_code: view.error?.details?.tool_code,
    output: view.output,
    crash_ref: typeof view.error?.details?.ref === "string",
  };
}

function fromRefusal(error: any): Said {
  return { refused: true, code: error.code, retryable: error.retryable };
}

type Case = { tool: string; input: Record<string, unknown>; options?: Record<string, unknown> };

const faces: Record<string, (c: Case) => Promise<Said>> = {
  async "REST JSON"(c) {
    const res = await call("POST", "/v1/executions", { tool: c.tool, input: c.input, limits: ROOMY, ...c.options });
    return res.body.execution_id ? fromView(res.body) : fromRefusal(res.body.error);
  },
  async "REST MessagePack"(c) {
    const res = await fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/msgpack", accept: "application/msgpack", ...bearer(DEV_KEY) },
      body: encode({ tool: c.tool, input: c.input, limits: ROOMY, ...c.options }) as BodyInit,
    });
    const body = decode(new Uint8Array(await res.arrayBuffer())) as any;
    return body.execution_id ? fromView(body) : fromRefusal(body.error);
  },
  async "Workers RPC"(c) {
    const q = new URLSearchParams({
      tool: c.tool,
      input: JSON.stringify(c.input),
      options: JSON.stringify({ limits: ROOMY, ...c.options }),
    });
    const r = (await (await fetch(`${callerUrl}/call?${q}`, { headers: CALLER_AUTH })).json()) as any;
    if (r.ok) return fromView(r.value);
    return r.execution ? fromView(r.execution) : fromRefusal(r.error);
  },
  async Connect(c) {
    const client = createClient(
      ToolRuntimeService,
      createConnectTransport({
        baseUrl,
        interceptors: [(next) => (req) => (req.header.set("authorization", bearer(DEV_KEY).authorization), next(req))],
      }),
    );
    try {
      const m = await client.invoke({
        tool: c.tool,
        input: c.input as JsonObject,
        limits: { timeoutMs: ROOMY.timeout_ms },
        ...(c.options?.idempotency_key ? { idempotencyKey: c.options.idempotency_key as string } : {}),
      });
      const details = m.error?.details as Record<string, unknown> | undefined;
      return {
        refused: false,
        status: m.status,
        code: m.error?.code,
        retryable: m.error?.retryable,
        tool_code: details?.tool_code,
        output: m.output === undefined ? undefined : toJson(ValueSchema, m.output),
        crash_ref: typeof details?.ref === "string",
      };
    } catch (err) {
      const e = err as ConnectError;
      return {
        refused: true,
        code: e.metadata.get("trt-error-code") ?? undefined,
        retryable: e.metadata.get("trt-retryable") === "true",
      };
    }
  },
};

const cases: [string, Case, Partial<Said>][] = [
  [
    "a success",
    { tool: "math.evaluate", input: { expression: "6 * 7" } },
    { refused: false, status: "succeeded", output: { value: 42 } },
  ],
  [
    "a refusal: invalid input",
    { tool: "math.evaluate", input: { nope: 1 } },
    { refused: true, code: "invalid_input", retryable: false },
  ],
  ["a refusal: unknown tool", { tool: "no.such.tool", input: {} }, { refused: true, code: "tool_not_found" }],
  [
    "a failure: invalid output",
    { tool: "lab.bad_output", input: {} },
    { refused: false, status: "failed", code: "invalid_output" },
  ],
  [
    "a failure: a crash, with a reference and no internals",
    { tool: "lab.crash", input: {} },
    { refused: false, status: "failed", code: "provider_crashed", crash_ref: true },
  ],
  [
    "lenient coercion: null becomes the default behind $ref, anyOf and oneOf",
    {
      tool: "lab.defaults",
      input: { text: "hi", lang: null, format: null, target: { kind: "inline", width: null }, note: null },
    },
    {
      refused: false,
      status: "succeeded",
      output: {
        received: { text: "hi", lang: "en", format: "plain", target: { kind: "inline", width: 80 }, note: null },
      },
    },
  ],
  [
    "a failure: the tool's own error code",
    { tool: "lab.reject", input: { code: "quota_exhausted" } },
    { refused: false, status: "failed", code: "tool_error", tool_code: "quota_exhausted" },
  ],
];

describe("every face says the same for the same call", () => {
  it.each(cases)("%s", async (_name, c, expected) => {
    const answers = Object.fromEntries(
      await Promise.all(Object.entries(faces).map(async ([face, run]) => [face, await run(c)] as const)),
    );
    for (const [face, said] of Object.entries(answers)) expect({ face, ...said }).toMatchObject({ face, ...expected });
    // And exactly the same words from each face.
    const first = answers["REST JSON"];
    for (const said of Object.values(answers)) expect(said).toEqual(first);
  });

  it("a replay: a keyed duplicate returns the original execution on every face", async () => {
    const key = `faces-${crypto.randomUUID()}`;
    const c: Case = { tool: "math.evaluate", input: { expression: "2 + 2" }, options: { idempotency_key: key } };
    const first = await call("POST", "/v1/executions", {
      tool: c.tool,
      input: c.input,
      limits: ROOMY,
      idempotency_key: key,
    });
    for (const [face, run] of Object.entries(faces)) {
      // The RPC caller is another tenant: its key names its own execution.
      if (face === "Workers RPC") continue;
      expect({ face, ...(await run(c)) }).toEqual({ face, ...fromView(first.body) });
    }
  });

  it("a cancel: the same outcome and partial output whichever face cancels", async () => {
    const results: Record<string, any> = {};
    for (const face of ["REST", "Connect"]) {
      const started = await call("POST", "/v1/executions", {
        tool: "lab.items",
        mode: "async",
        // Half a minute of items: only the cancel ends it.
        input: { count: 300, interval_ms: 100 },
        limits: { timeout_ms: 120_000 },
      });
      const id = started.body.execution_id;
      // Cancelled once a few items are out.
      await eventsUntil(id, (events) => events.filter((e) => e.type === "partial").length >= 3);
      if (face === "REST") {
        results[face] = (await call("POST", `/v1/executions/${id}/cancel`)).body;
      } else {
        const client = createClient(
          ToolRuntimeService,
          createConnectTransport({
            baseUrl,
            interceptors: [
              (next) => (req) => (req.header.set("authorization", bearer(DEV_KEY).authorization), next(req)),
            ],
          }),
        );
        const m = await client.cancel({ executionId: id });
        results[face] = {
          status: m.status,
          error: { code: m.error?.code },
          partial_output: toJson(ValueSchema, m.partialOutput!),
        };
      }
    }
    for (const r of Object.values(results)) {
      expect(r).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
      // Append-partials (docs/contract.md#partial-output): every item produced before the cancel, in order.
      expect(Array.isArray(r.partial_output)).toBe(true);
      expect(r.partial_output.length).toBeGreaterThanOrEqual(3);
      expect(r.partial_output).toEqual(r.partial_output.map((_: unknown, i: number) => ({ n: i + 1 })));
    }
  });
});
