/**
 * The Connect face's limits in workerd, with a request body that counts what is pulled from it:
 * the credential and a declared length are checked before the body is read, and a body without
 * a length is cut off once it passes MAX_REQUEST_BYTES — never read to its end.
 */
import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { InvokeRequestSchema } from "../../src/gen/tool_runtime/v1/runtime_pb.ts";

const INVOKE = "http://localhost/tool_runtime.v1.ToolRuntimeService/Invoke";
const MiB = 1024 * 1024;
const FIFTY_MB = 50 * 1000 * 1000;

/** A 50 MB JSON-ish body made lazily, 64 KiB a pull; `pulled()` says how much was taken. */
function lazyBody(total = FIFTY_MB) {
  const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { stream, pulled: () => pulled };
}

const connectJson = { "content-type": "application/json", "connect-protocol-version": "1" };

describe("the Connect face's limits", () => {
  it("refuses a 50 MB unauthenticated body without reading it to the end", async () => {
    const body = lazyBody();
    const res = await exports.default.fetch(INVOKE, { method: "POST", headers: connectJson, body: body.stream });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "unauthenticated" });
    expect(res.headers.get("trt-error-code")).toBe("unauthenticated");
    expect(body.pulled()).toBeLessThan(2 * MiB);
  });

  it("refuses a declared length over the limit before reading, with the REST code", async () => {
    const res = await exports.default.fetch(INVOKE, {
      method: "POST",
      headers: { ...connectJson, authorization: `Bearer ${env.DEV_API_KEY}`, "content-length": String(FIFTY_MB) },
      body: new Uint8Array(16),
    });
    expect(res.headers.get("trt-error-code")).toBe("payload_too_large");
    expect(await res.json()).toMatchObject({ code: "resource_exhausted" });
  });

  it("cuts off an authenticated body without a length once it passes the limit", async () => {
    const body = lazyBody();
    const res = await exports.default.fetch(INVOKE, {
      method: "POST",
      headers: { ...connectJson, authorization: `Bearer ${env.DEV_API_KEY}` },
      body: body.stream,
    });
    expect(await res.json()).toMatchObject({ code: "resource_exhausted" });
    expect(res.headers.get("trt-error-code")).toBe("payload_too_large");
    expect(body.pulled()).toBeLessThan(4 * MiB);
  });

  it("still serves an ordinary call", async () => {
    const res = await exports.default.fetch(INVOKE, {
      method: "POST",
      headers: { ...connectJson, authorization: `Bearer ${env.DEV_API_KEY}` },
      body: JSON.stringify({ tool: "math.evaluate", input: { expression: "6 * 7" }, limits: { timeoutMs: 20_000 } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "succeeded", output: { value: 42 } });
  });
});

/** An input object holding `depth` objects, each in the one before (a Struct is two messages per level on the wire). */
function nested(depth: number): JsonObject {
  let v: JsonObject = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe("nesting over Connect is a 400, never a 500", () => {
  const authed = { "connect-protocol-version": "1", authorization: `Bearer ${env.DEV_API_KEY}` };

  it("refuses a binary message nested past what the protobuf reader allows (300 objects deep) with invalid_argument", async () => {
    const body = toBinary(InvokeRequestSchema, create(InvokeRequestSchema, { tool: "lab.echo", input: nested(300) }));
    const res = await exports.default.fetch(INVOKE, {
      method: "POST",
      headers: { ...authed, "content-type": "application/proto" },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_argument" });
    expect(res.headers.get("trt-error-code")).toBe("invalid_request");
  });

  it("refuses a JSON message nested 100,000 levels deep with invalid_argument", async () => {
    const body = `{"tool": "lab.echo", "input": ${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
    const res = await exports.default.fetch(INVOKE, {
      method: "POST",
      headers: { ...authed, "content-type": "application/json" },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_argument" });
  });
});
