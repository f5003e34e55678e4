/**
 * What an upstream's failure means for the caller and for provider health (issue 17, item 4,
 * "bad input and faults"): the same codes and signals as a native provider's.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { classifyRpcFailure } from "../../src/execution/provider-failure.ts";
import { judge } from "../../src/registry/health-reporter.ts";
import { toInvokeResult } from "../../src/upstreams/adapter.ts";
import { ResponseTooLarge } from "../../src/upstreams/client.ts";
import { EgressRefused } from "../../src/upstreams/egress.ts";
import { classifyUpstreamError, CREDENTIAL_REFUSED, UpstreamFailure, type Classified } from "../../src/upstreams/failures.ts";

const runtime = { credential: "runtime" as const, tooLarge: false };
const code = (c: Classified) => (c.kind === "failure" ? c.failure.code : `answer:${c.result.code}`);
const http = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `HTTP ${status}`, { status, statusText: "x" });

describe("classifyUpstreamError", () => {
  it("calls an unreachable or refusing upstream unavailable (liveness moves)", () => {
    expect(code(classifyUpstreamError(new TypeError("fetch failed"), runtime))).toBe("sandbox_unavailable");
    expect(code(classifyUpstreamError(new EgressRefused("loopback"), runtime))).toBe("sandbox_unavailable");
    for (const s of [404, 502, 503, 504, 401, 403]) expect(code(classifyUpstreamError(http(s), runtime))).toBe("sandbox_unavailable");
    expect(code(classifyUpstreamError(new SdkError(SdkErrorCode.SendFailed, "x", undefined, { cause: new TypeError("Network connection lost") }), runtime))).toBe("sandbox_unavailable");
  });

  it("calls garbage, JSON-RPC errors and a 500 a crash (a breaker sample)", () => {
    expect(code(classifyUpstreamError(new SyntaxError("Unexpected token < in JSON"), runtime))).toBe("provider_crashed");
    expect(code(classifyUpstreamError(new SdkError(SdkErrorCode.InvalidResult, "result failed schema"), runtime))).toBe("provider_crashed");
    expect(code(classifyUpstreamError(new ProtocolError(-32603, "boom"), runtime))).toBe("provider_crashed");
    expect(code(classifyUpstreamError(http(500), runtime))).toBe("provider_crashed");
  });

  it("calls an answer past the size limit resource_exceeded", () => {
    expect(code(classifyUpstreamError(new ResponseTooLarge(10), runtime))).toBe("resource_exceeded");
    expect(code(classifyUpstreamError(new Error("stream errored"), { ...runtime, tooLarge: true }))).toBe("resource_exceeded");
  });

  it("answers a tenant's refused token as the tenant's tool_error, never against the upstream", () => {
    const c = classifyUpstreamError(http(401), { credential: "tenant", tooLarge: false });
    expect(c).toMatchObject({ kind: "answer", result: { code: "tool_error", tool_code: CREDENTIAL_REFUSED } });
  });

  it("answers an unknown tool as tool_not_found (the registry is stale)", () => {
    expect(code(classifyUpstreamError(new ProtocolError(-32602, "Tool echo not found"), runtime))).toBe("answer:tool_not_found");
  });
});

describe("the adapter's failures reach stage 7 and health like a provider's", () => {
  it("keeps its classification through classifyRpcFailure", () => {
    const failure = { code: "sandbox_unavailable" as const, message: "the upstream could not be reached", transport: true };
    expect(classifyRpcFailure(new UpstreamFailure(failure))).toEqual(failure);
    const outcome = { kind: "rpc_failed" as const, failure: classifyRpcFailure(new UpstreamFailure(failure)), raw: "" };
    expect(judge(outcome, undefined)).toEqual({ ok: false, transport: failure.message });
  });

  it("does not trust an error that merely looks like one", () => {
    const fake = Object.assign(new Error("x"), { failure: { code: "sandbox_unavailable", message: "m", transport: true } });
    expect(classifyRpcFailure(fake).code).toBe("provider_crashed");
  });
});

describe("toInvokeResult", () => {
  it("makes isError a tool_error with the tool's text", () => {
    const r = toInvokeResult({ content: [{ type: "text", text: "it failed" }], isError: true }, { structured: false }, 5);
    expect(r).toEqual({ ok: false, error: { code: "tool_error", message: "it failed" }, latency_us: 5 });
  });

  it("outputs structuredContent for a tool with an output schema, content blocks otherwise", () => {
    expect(toInvokeResult({ content: [], structuredContent: { text: "hi" } }, { structured: true }, 1)).toMatchObject({ ok: true, output: { text: "hi" } });
    expect(toInvokeResult({ content: [] }, { structured: true }, 1)).toMatchObject({ ok: true, output: null });
    expect(toInvokeResult({ content: [{ type: "text", text: "hi" }] }, { structured: false }, 1)).toMatchObject({ ok: true, output: { content: [{ type: "text", text: "hi" }] } });
  });
});
