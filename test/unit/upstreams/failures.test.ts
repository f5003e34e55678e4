/**
 * What an upstream's failure means for the caller and for provider health (docs/contract.md#upstreams): the same codes and signals as a native provider's.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { classifyRpcFailure } from "../../../src/execution/provider-failure.ts";
import { judge } from "../../../src/registry/health-reporter.ts";
import { toInvokeResult } from "../../../src/upstreams/adapter.ts";
import { ResponseTooLarge } from "../../../src/upstreams/client.ts";
import { EgressRefused } from "../../../src/upstreams/egress.ts";
import {
  classifyUpstreamError,
  CREDENTIAL_REFUSED,
  TENANT_CALL_REFUSED,
  UpstreamFailure,
  UpstreamRefusal,
  type Classified,
} from "../../../src/upstreams/failures.ts";
import { settle } from "../../../src/execution/settle.ts";
import { direct, invokeProvider, StopLatch } from "../../../src/execution/provider-call.ts";

const runtime = { credential: "runtime" as const, tooLarge: false };
const tenant = { credential: "tenant" as const, tooLarge: false };
const code = (c: Classified) =>
  c.kind === "failure"
    ? c.failure.code
    : c.kind === "refused"
      ? `refused:${c.refusal.code}`
      : `answer:${c.result.code}`;
const http = (status: number) =>
  new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, `HTTP ${status}`, { status, statusText: "x" });

describe("classifyUpstreamError", () => {
  it("calls an unreachable or refusing upstream unavailable (liveness moves)", () => {
    expect(code(classifyUpstreamError(new TypeError("fetch failed"), runtime))).toBe("sandbox_unavailable");
    expect(code(classifyUpstreamError(new EgressRefused("loopback"), runtime))).toBe("sandbox_unavailable");
    for (const s of [404, 502, 503, 504, 401, 403])
      expect(code(classifyUpstreamError(http(s), runtime))).toBe("sandbox_unavailable");
    expect(
      code(
        classifyUpstreamError(
          new SdkError(SdkErrorCode.SendFailed, "x", undefined, { cause: new TypeError("Network connection lost") }),
          runtime,
        ),
      ),
    ).toBe("sandbox_unavailable");
  });

  it("calls garbage, JSON-RPC errors and a 500 a crash (a breaker sample)", () => {
    expect(code(classifyUpstreamError(new SyntaxError("Unexpected token < in JSON"), runtime))).toBe(
      "provider_crashed",
    );
    expect(code(classifyUpstreamError(new SdkError(SdkErrorCode.InvalidResult, "result failed schema"), runtime))).toBe(
      "provider_crashed",
    );
    expect(code(classifyUpstreamError(new ProtocolError(-32603, "boom"), runtime))).toBe("provider_crashed");
    expect(code(classifyUpstreamError(http(500), runtime))).toBe("provider_crashed");
  });

  it("calls an answer past the size limit resource_exceeded", () => {
    expect(code(classifyUpstreamError(new ResponseTooLarge(10), runtime))).toBe("resource_exceeded");
    expect(code(classifyUpstreamError(new Error("stream errored"), { ...runtime, tooLarge: true }))).toBe(
      "resource_exceeded",
    );
  });

  it("refuses a call whose tenant token the upstream refused as the tenant's tool_error, never against the upstream", () => {
    for (const s of [401, 403]) {
      expect(classifyUpstreamError(http(s), tenant)).toMatchObject({
        kind: "refused",
        refusal: { code: "tool_error", tool_code: CREDENTIAL_REFUSED, details: { http_status: s } },
      });
    }
  });

  it("refuses any other non-2xx answer to a tenant's token as the tenant's failure, not the upstream's", () => {
    for (const s of [307, 404, 405, 408, 429, 500, 502, 503, 504]) {
      const c = classifyUpstreamError(http(s), tenant);
      expect(c).toMatchObject({
        kind: "refused",
        refusal: { code: "tool_error", tool_code: TENANT_CALL_REFUSED, details: { http_status: s } },
      });
    }
    expect(classifyUpstreamError(http(503), tenant)).toMatchObject({ refusal: { retryable: true } });
    expect(classifyUpstreamError(http(500), tenant)).toMatchObject({ refusal: { retryable: false } });
    // No answer at all is still the upstream's: unreachable is unreachable whoever's token it was.
    expect(code(classifyUpstreamError(new TypeError("fetch failed"), tenant))).toBe("sandbox_unavailable");
    // With the runtime's own secret the same statuses stay the upstream's.
    for (const s of [404, 405, 408, 429, 503])
      expect(code(classifyUpstreamError(http(s), runtime))).toBe("sandbox_unavailable");
  });

  it("refuses JSON-RPC invalid params as invalid_input on every credential path", () => {
    for (const credential of ["runtime", "tenant", "none"] as const) {
      expect(
        code(
          classifyUpstreamError(new ProtocolError(-32602, "Invalid params: count must be positive"), {
            credential,
            tooLarge: false,
          }),
        ),
      ).toBe("refused:invalid_input");
    }
  });

  it("answers an unknown tool as tool_not_found (the registry is stale)", () => {
    expect(code(classifyUpstreamError(new ProtocolError(-32602, "Tool echo not found"), runtime))).toBe(
      "answer:tool_not_found",
    );
  });
});

describe("the adapter's failures reach stage 7 and health like a provider's", () => {
  it("keeps its classification through classifyRpcFailure", () => {
    const failure = {
      code: "sandbox_unavailable" as const,
      message: "the upstream could not be reached",
      transport: true,
    };
    expect(classifyRpcFailure(new UpstreamFailure(failure))).toEqual(failure);
    const outcome = { kind: "rpc_failed" as const, failure: classifyRpcFailure(new UpstreamFailure(failure)), raw: "" };
    expect(judge(outcome, undefined)).toEqual({ ok: false, transport: failure.message });
  });

  it("turns a refusal into the caller's failure with its code and no health sample", async () => {
    const refusal = {
      code: "invalid_input" as const,
      message: "the upstream refused the tool's arguments as invalid (JSON-RPC -32602)",
      details: { upstream_code: -32602 },
    };
    const service = {
      manifest: async () => ({}) as never,
      invoke: async () => Promise.reject(new UpstreamRefusal(refusal)),
    };
    const sink = { emit: async () => {}, stopped: () => new Promise<never>(() => {}) };
    const outcome = await invokeProvider(
      direct(service),
      { remaining_timeout_ms: 5_000 } as never,
      sink,
      new StopLatch(),
      new Promise(() => {}),
    );
    expect(outcome).toEqual({ kind: "refused", refusal });
    expect(judge(outcome, undefined)).toBeUndefined();
    const settled = settle(outcome, { output_hash: "", idempotent: true, timeout_ms: 5_000, max_output_bytes: 1_000 });
    expect(settled).toMatchObject({
      status: "failed",
      error: { code: "invalid_input", retryable: false, details: { upstream_code: -32602 } },
    });
    const token = {
      code: "tool_error" as const,
      tool_code: TENANT_CALL_REFUSED,
      message: "m",
      retryable: true,
      details: { http_status: 503 },
    };
    expect(
      settle(
        { kind: "refused", refusal: token },
        { output_hash: "", idempotent: true, timeout_ms: 5_000, max_output_bytes: 1_000 },
      ),
    ).toMatchObject({
      status: "failed",
      error: { code: "tool_error", retryable: true, details: { http_status: 503, tool_code: TENANT_CALL_REFUSED } },
    });
  });

  it("does not trust an error that merely looks like one", () => {
    const fake = Object.assign(new Error("x"), {
      failure: { code: "sandbox_unavailable", message: "m", transport: true },
    });
    expect(classifyRpcFailure(fake).code).toBe("provider_crashed");
  });
});

describe("toInvokeResult", () => {
  it("makes isError a tool_error with the tool's text", () => {
    const r = toInvokeResult(
      { content: [{ type: "text", text: "it failed" }], isError: true },
      { structured: false },
      5,
    );
    expect(r).toEqual({ ok: false, error: { code: "tool_error", message: "it failed" }, latency_us: 5 });
  });

  it("outputs structuredContent for a tool with an output schema, content blocks otherwise", () => {
    expect(toInvokeResult({ content: [], structuredContent: { text: "hi" } }, { structured: true }, 1)).toMatchObject({
      ok: true,
      output: { text: "hi" },
    });
    expect(toInvokeResult({ content: [] }, { structured: true }, 1)).toMatchObject({ ok: true, output: null });
    expect(toInvokeResult({ content: [{ type: "text", text: "hi" }] }, { structured: false }, 1)).toMatchObject({
      ok: true,
      output: { content: [{ type: "text", text: "hi" }] },
    });
  });
});
