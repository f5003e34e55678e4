/**
 * Bounded, audited, least privilege (docs/contract.md#limits, docs/roles.md) as a caller meets it on the real stack: one set
 * of limits on every face, bounded context, 405 with Allow, a quiet /readyz.
 */
import { createClient, Code, ConnectError } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { encode } from "@msgpack/msgpack";
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { ToolRuntimeService } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";
import { asAdmin, baseUrl, bearer, call, CALLER_AUTH, DEV_KEY, execute } from "./http.ts";
import { provided } from "./stack.ts";

const FIFTY_MB = 50 * 1000 * 1000;

/**
 * POSTs a 50 MB body, as fast as the other side takes it, and resolves with the answer.
 * That the runtime reads none of it is counted in workerd itself
 * (test/integration/connect-limits.test.ts): under `wrangler dev` a middleware wrangler adds to
 * every Worker reads an unread body to its end before the answer goes out, so here the whole
 * body is always taken — by wrangler, not by the runtime.
 */
function upload(
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    const req = httpRequest(
      `${baseUrl}${path}`,
      { method: "POST", headers: { ...headers, "content-length": String(FIFTY_MB) } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    const pump = () => {
      while (sent < FIFTY_MB) {
        const n = Math.min(chunk.byteLength, FIFTY_MB - sent);
        sent += n;
        if (!req.write(n === chunk.byteLength ? chunk : chunk.subarray(0, n))) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

describe("a 50 MB body", () => {
  it("without a credential is refused on REST and on Connect, with the same code", async () => {
    const rest = await upload("/v1/executions", { "content-type": "application/json" });
    expect(rest.status).toBe(401);
    expect(JSON.parse(rest.body).error.code).toBe("unauthenticated");
    const connect = await upload("/tool_runtime.v1.ToolRuntimeService/Invoke", {
      "content-type": "application/json",
      "connect-protocol-version": "1",
    });
    expect(connect.status).toBe(401);
    expect(JSON.parse(connect.body)).toMatchObject({ code: "unauthenticated" });
    expect(connect.headers["trt-error-code"]).toBe("unauthenticated");
  });

  it("with a credential is refused by its declared length on REST and on Connect", async () => {
    const rest = await upload("/v1/executions", { "content-type": "application/json", ...bearer(DEV_KEY) });
    expect(rest.status).toBe(413);
    expect(JSON.parse(rest.body).error).toMatchObject({
      code: "payload_too_large",
      details: { max_bytes: 1_048_576, actual_bytes: FIFTY_MB },
    });
    const connect = await upload("/tool_runtime.v1.ToolRuntimeService/Invoke", {
      "content-type": "application/json",
      "connect-protocol-version": "1",
      ...bearer(DEV_KEY),
    });
    expect(connect.headers["trt-error-code"]).toBe("payload_too_large");
    expect(JSON.parse(connect.body)).toMatchObject({ code: "resource_exhausted" });
  });
});

describe("context has bounds of its own, on every face", () => {
  const long = "c".repeat(200_000);

  it("refuses a sync call with a 200,000-character correlation id, naming the field (REST, JSON and MessagePack)", async () => {
    const body = { tool: "math.evaluate", input: { expression: "1 + 1" }, context: { correlation_id: long } };
    const json = await execute(body);
    expect(json.status).toBe(400);
    expect(json.body.error).toMatchObject({
      code: "invalid_request",
      details: { field: "context.correlation_id", max_length: 1024 },
    });
    const mp = await fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/msgpack", ...bearer(DEV_KEY) },
      body: encode(body) as BodyInit,
    });
    expect(mp.status).toBe(400);
    expect(((await mp.json()) as any).error.details.field).toBe("context.correlation_id");
  });

  it("refuses it over Connect and Workers RPC with the same code", async () => {
    const transport = createConnectTransport({
      baseUrl,
      interceptors: [(next) => (req) => (req.header.set("authorization", bearer(DEV_KEY).authorization), next(req))],
    });
    const err = await createClient(ToolRuntimeService, transport)
      .invoke({ tool: "math.evaluate", context: { correlation_id: long } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).metadata.get("trt-error-code")).toBe("invalid_request");
    // Through the example caller Worker's service binding (its URL carries the options, so a shorter string).
    const options = JSON.stringify({ context: { correlation_id: "c".repeat(2_000) } });
    const rpc = (await (
      await fetch(
        `${provided("callerUrl")}/call?tool=math.evaluate&input=${encodeURIComponent('{"expression":"1"}')}&options=${encodeURIComponent(options)}`,
        { headers: CALLER_AUTH },
      )
    ).json()) as any;
    expect(rpc).toMatchObject({
      ok: false,
      error: { code: "invalid_request", details: { field: "context.correlation_id" } },
    });
  });
});

describe("MessagePack bombs", () => {
  it("answer 400 invalid_request, never a 500", async () => {
    const deep = new Uint8Array(512 * 1024).fill(0x91);
    deep[deep.length - 1] = 0xc0;
    const huge = Uint8Array.from([
      0x82,
      0xa4,
      ...new TextEncoder().encode("tool"),
      0xa1,
      0x74,
      0xa5,
      ...new TextEncoder().encode("input"),
      0xdd,
      0xff,
      0xff,
      0xff,
      0xff,
    ]);
    for (const body of [deep, huge]) {
      const res = await fetch(`${baseUrl}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/msgpack", ...bearer(DEV_KEY) },
        body: body as BodyInit,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.code).toBe("invalid_request");
    }
  });
});

describe("a known path with a method it does not answer", () => {
  it.each([
    ["DELETE", "/v1/executions", "GET, HEAD, POST"],
    ["PUT", "/v1/executions/exec_1", "GET, HEAD"],
    ["GET", "/v1/executions/exec_1/cancel", "POST"],
    ["POST", "/healthz", "GET, HEAD"],
    ["DELETE", "/v1/tools", "GET, HEAD"],
  ])("%s %s is 405 with Allow: %s", async (method, path, allow) => {
    const res = await call(method, path);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(res.body.error).toMatchObject({ code: "method_not_allowed", retryable: false });
  });

  it("answers in the caller's format, and an unknown path stays 404", async () => {
    const res = await fetch(`${baseUrl}/v1/tools`, {
      method: "PATCH",
      headers: { accept: "application/msgpack", ...bearer(DEV_KEY) },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get("content-type")).toBe("application/msgpack");
    expect((await call("DELETE", "/v1/nowhere")).status).toBe(404);
  });
});

describe("health", () => {
  it("answers /readyz with its status only, to anyone", async () => {
    const res = await fetch(`${baseUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });

  it("gives the details to operators only", async () => {
    const report = await asAdmin("GET", "/v1/admin/readiness");
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({
      status: "ready",
      problems: [],
      tools: expect.any(Number),
      audit_db: { ready: true },
    });
    expect(report.body.providers.map((p: { name: string }) => p.name)).toEqual([
      "std",
      "community",
      "lab",
      "lab-twin",
      "lab-broken",
    ]);
    expect((await call("GET", "/v1/admin/readiness")).status).toBe(403);
    expect((await call("GET", "/v1/admin/readiness", undefined, { authorization: "" })).status).toBe(401);
  });
});
