/** Connect and gRPC-Web with the real Connect clients; native gRPC gets a clear refusal. */
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { describe, expect, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { baseUrl, bearer, DEV_KEY, execute } from "./http.ts";

const auth = bearer(DEV_KEY);
const transports = {
  connect: createConnectTransport({ baseUrl, interceptors: [(next) => (req) => (req.header.set("authorization", auth.authorization), next(req))] }),
  "grpc-web": createGrpcWebTransport({ baseUrl, interceptors: [(next) => (req) => (req.header.set("authorization", auth.authorization), next(req))] }),
};

describe.each(Object.entries(transports))("%s", (_name, transport) => {
  const client = createClient(ToolRuntimeService, transport);

  it("invokes a tool with the same output and status as REST", async () => {
    const [rest, rpc] = [await execute({ tool: "math.evaluate", input: { expression: "6 * 7" } }), await client.invoke({ tool: "math.evaluate", limits: { timeoutMs: 20_000 }, input: { kind: { case: "structValue", value: { fields: { expression: { kind: { case: "stringValue", value: "6 * 7" } } } } } } })];
    expect(rpc.status).toBe(rest.body.status);
    expect(rpc.output?.kind).toEqual({ case: "structValue", value: expect.objectContaining({ fields: { value: expect.objectContaining({ kind: { case: "numberValue", value: 42 } }) } }) });
    expect(rpc.executionId).toMatch(/^exec_([0-9a-f]{64}|e[0-9a-f]{44})$/);
  });

  it("reports a failed execution in the message, with REST's error code", async () => {
    const rpc = await client.invoke({ tool: "lab.bad_output", limits: { timeoutMs: 20_000 } });
    const rest = await execute({ tool: "lab.bad_output", input: {} });
    expect(rpc.status).toBe("failed");
    expect(rpc.error?.code).toBe(rest.body.error.code);
  });

  it("refuses a bad call with a Connect error carrying the TRT-002 code", async () => {
    const err = await client.invoke({ tool: "no.such.tool" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.NotFound);
    expect((err as ConnectError).metadata.get("trt-error-code")).toBe("tool_not_found");
    const unauth = await createClient(ToolRuntimeService, createConnectTransport({ baseUrl })).listTools({}).catch((e: unknown) => e);
    expect((unauth as ConnectError).code).toBe(Code.Unauthenticated);
  });

  it("streams an execution's events in order to the terminal one", async () => {
    const events = [];
    for await (const e of client.invokeStream({ tool: "demo.countdown", input: { kind: { case: "structValue", value: { fields: { from: { kind: { case: "numberValue", value: 3 } }, interval_ms: { kind: { case: "numberValue", value: 20 } } } } } } })) {
      events.push(e);
    }
    expect(events.map((e) => Number(e.seq))).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe("start");
    expect(events.at(-1)!.type).toBe("done");
  });

  it("lists tools, reads and cancels executions", async () => {
    expect((await client.listTools({})).tools.map((t) => t.name)).toContain("math.evaluate");
    const started = await execute({ tool: "demo.countdown", mode: "async", input: { from: 20, interval_ms: 100 } });
    expect((await client.getExecution({ executionId: started.body.execution_id })).status).toBe("running");
    expect((await client.cancel({ executionId: started.body.execution_id })).status).toBe("cancelled");
  });
});

describe("native gRPC", () => {
  it("gets a clear trailers-only refusal pointing to gRPC-Web or Connect", async () => {
    const res = await fetch(`${baseUrl}/tool_runtime.v1.ToolRuntimeService/Invoke`, { method: "POST", headers: { "content-type": "application/grpc", te: "trailers", ...auth }, body: new Uint8Array([0, 0, 0, 0, 0]) });
    expect(res.headers.get("grpc-status")).toBe(String(Code.Unimplemented));
    expect(decodeURIComponent(res.headers.get("grpc-message")!)).toContain("use gRPC-Web or Connect");
  });
});
