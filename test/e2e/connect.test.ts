/** Connect and gRPC-Web with the real Connect clients; native gRPC gets a clear refusal. */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { describe, expect, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { baseUrl, bearer, DEV_KEY, execute } from "./http.ts";

const auth = bearer(DEV_KEY);
const withKey = [(next: any) => (req: any) => (req.header.set("authorization", auth.authorization), next(req))];
const transports = {
  // connect-web's Connect transport speaks JSON unless told otherwise; binary is the other codec.
  connect: createConnectTransport({ baseUrl, interceptors: withKey }),
  "connect (binary)": createConnectTransport({ baseUrl, useBinaryFormat: true, interceptors: withKey }),
  "grpc-web": createGrpcWebTransport({ baseUrl, interceptors: withKey }),
};

describe.each(Object.entries(transports))("%s", (_name, transport) => {
  const client = createClient(ToolRuntimeService, transport);

  it("invokes a tool with the same output and status as REST", async () => {
    // Roomy limits: an instant tool's 100 ms is tight for the first call on a busy machine.
    const [rest, rpc] = [
      await execute({ tool: "math.evaluate", input: { expression: "6 * 7" }, limits: { timeout_ms: 5000 } }),
      await client.invoke({ tool: "math.evaluate", input: { expression: "6 * 7" }, limits: { timeoutMs: 5000 } }),
    ];
    expect(rpc.status).toBe(rest.body.status);
    expect(rpc.output?.kind).toEqual({
      case: "structValue",
      value: expect.objectContaining({
        fields: { value: expect.objectContaining({ kind: { case: "numberValue", value: 42 } }) },
      }),
    });
    expect(rpc.executionId).toMatch(/^exec_([0-9a-f]{64}|e[0-9a-f]{44})$/);
  });

  it("reports a failed execution in the message, with REST's error code", async () => {
    const rpc = await client.invoke({ tool: "lab.bad_output", limits: { timeoutMs: 20_000 } });
    const rest = await execute({ tool: "lab.bad_output", input: {} });
    expect(rpc.status).toBe("failed");
    expect(rpc.error?.code).toBe(rest.body.error.code);
  });

  it("takes the input as a plain object and refuses one the tool's schema does not admit as invalid_input", async () => {
    const err = await client.invoke({ tool: "math.evaluate", input: { expression: 42 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).metadata.get("trt-error-code")).toBe("invalid_input");
    expect(JSON.parse((err as ConnectError).metadata.get("trt-error-details")!).violations[0]).toMatchObject({
      path: "/expression",
    });
  });

  it("refuses a bad call with a Connect error carrying the error code", async () => {
    const err = await client.invoke({ tool: "no.such.tool" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
    expect((err as ConnectError).metadata.get("trt-error-code")).toBe("tool_not_found");
    const unauth = await createClient(ToolRuntimeService, createConnectTransport({ baseUrl }))
      .listTools({})
      .catch((e: unknown) => e);
    expect((unauth as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("streams an execution's events in order to the terminal one", async () => {
    const events = [];
    for await (const e of client.invokeStream({ tool: "demo.countdown", input: { from: 3, interval_ms: 20 } })) {
      events.push(e);
    }
    expect(events.map((e) => Number(e.seq))).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe("start");
    expect(events.at(-1)!.type).toBe("done");
  });

  it("lists tools, reads and cancels executions", async () => {
    expect((await client.listTools({})).tools.map((t) => t.name)).toContain("math.evaluate");
    const started = await execute({ tool: "demo.countdown", mode: "async", input: { from: 600, interval_ms: 100 } }); // a minute: only the cancel ends it
    expect((await client.getExecution({ executionId: started.body.execution_id })).status).toBe("running");
    expect((await client.cancel({ executionId: started.body.execution_id })).status).toBe("cancelled");
  });
});

describe("malformed input", () => {
  const expectInvalidInput = (err: unknown, path: string) => {
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).metadata.get("trt-error-code")).toBe("invalid_input");
    expect(JSON.parse((err as ConnectError).metadata.get("trt-error-details")!).violations).toEqual([
      expect.objectContaining({ path }),
    ]);
  };

  // Binary codecs carry numbers JSON cannot: the runtime refuses them rather than guess.
  it.each(["connect (binary)", "grpc-web"] as const)(
    "%s: a number JSON cannot carry is invalid_input, for Invoke and InvokeStream",
    async (name) => {
      const client = createClient(ToolRuntimeService, transports[name]);
      expectInvalidInput(
        await client.invoke({ tool: "lab.echo", input: { a: { b: [1, Number.NaN] } } }).catch((e: unknown) => e),
        "/a/b/1",
      );
      const streamed = (async () => {
        for await (const _ of client.invokeStream({ tool: "lab.echo", input: { x: Number.POSITIVE_INFINITY } })) void _;
      })();
      expectInvalidInput(await streamed.catch((e: unknown) => e), "/x");
    },
  );

  // What a hand-written Connect JSON call can get wrong: an input that is not an object.
  it.each([
    ["a string", '"6 * 7"'],
    ["an array", "[1, 2]"],
    ["a number", "42"],
  ])(
    "Connect JSON: an input that is %s is invalid_input (400), not the protocol's parse error",
    async (_kind, input) => {
      const res = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`, {
        method: "POST",
        headers: { "content-type": "application/json", ...auth },
        body: `{"tool": "math.evaluate", "input": ${input}}`,
      });
      expect(res.status).toBe(400);
      expect(res.headers.get("trt-error-code")).toBe("invalid_input");
      expect(await res.json()).toMatchObject({
        code: "invalid_argument",
        message: expect.stringContaining("input must be a JSON object"),
      });
    },
  );

  it.each([
    ["Connect", "application/connect+json"],
    ["gRPC-Web", "application/grpc-web+json"],
  ])("%s JSON, streamed: an input that is not an object ends the call with invalid_input", async (_protocol, type) => {
    const json = new TextEncoder().encode('{"tool": "math.evaluate", "input": "6 * 7"}');
    const framed = new Uint8Array(5 + json.length);
    new DataView(framed.buffer).setUint32(1, json.length);
    framed.set(json, 5);
    const res = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/InvokeStream`, {
      method: "POST",
      headers: { "content-type": type, ...auth },
      body: framed,
    });
    const body = new Uint8Array(await res.arrayBuffer());
    // The last envelope ends the call: Connect's end-stream JSON, or gRPC-Web's trailers.
    let at = 0;
    let last = { flags: 0, text: "" };
    while (at + 5 <= body.length) {
      const length = new DataView(body.buffer, body.byteOffset + at + 1, 4).getUint32(0);
      last = { flags: body[at], text: new TextDecoder().decode(body.subarray(at + 5, at + 5 + length)) };
      at += 5 + length;
    }
    if (type === "application/connect+json") {
      expect(last.flags & 2).toBe(2);
      expect(JSON.parse(last.text)).toMatchObject({
        error: { code: "invalid_argument" },
        metadata: { "trt-error-code": ["invalid_input"] },
      });
    } else {
      const trailers = res.headers.get("grpc-status")
        ? res.headers
        : new Headers(
            last.text
              .trim()
              .split("\r\n")
              .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trim()] as [string, string]),
          );
      expect(trailers.get("grpc-status")).toBe(String(Code.InvalidArgument));
      expect(trailers.get("trt-error-code")).toBe("invalid_input");
    }
  });

  it("Connect JSON: a plain object as written is the input", async () => {
    const res = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: '{"tool": "math.evaluate", "input": {"expression": "6 * 7"}, "limits": {"timeoutMs": 20000}}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "succeeded", output: { value: 42 } });
  });
});

describe("native gRPC", () => {
  it("gets a clear trailers-only refusal pointing to gRPC-Web or Connect", async () => {
    const res = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`, {
      method: "POST",
      headers: { "content-type": "application/grpc", te: "trailers", ...auth },
      body: new Uint8Array([0, 0, 0, 0, 0]),
    });
    expect(res.headers.get("grpc-status")).toBe(String(Code.Unimplemented));
    expect(decodeURIComponent(res.headers.get("grpc-message")!)).toContain("use gRPC-Web or Connect");
  });
});
