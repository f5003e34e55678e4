import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { executionRecord } from "../../fixtures/record.ts";
import type { InvokeResult, ProviderError } from "../../../providers/sdk/protocol.ts";
import { httpStatusOf, toView, type ExecutionRecord } from "../../../src/execution/record.ts";
import type { ExecutionStatus } from "../../../src/contract.ts";
import { RuntimeError } from "../../../src/errors.ts";
import { settle, type SettleContext } from "../../../src/execution/settle.ts";
import { classifyRpcFailure } from "../../../src/execution/provider-failure.ts";
import type { ProviderOutcome } from "../../../src/execution/provider-call.ts";

const OUTPUT_HASH = "output-schema-under-test";
const validate = new Ajv({ allErrors: true }).compile({
  type: "object",
  properties: { total: { type: "number" }, unit: { type: "string" }, rows: { type: "array" } },
  required: ["total", "unit"],
  additionalProperties: false,
});

function ctx(overrides: Partial<SettleContext> = {}): SettleContext {
  return {
    output_hash: OUTPUT_HASH,
    idempotent: true,
    timeout_ms: 5_000,
    max_output_bytes: 1_024,
    validators: { [OUTPUT_HASH]: validate },
    ...overrides,
  };
}

const ok = (output: unknown): ProviderOutcome => ({ kind: "result", result: { ok: true, output, latency_us: 120 } });
const providerError = (error: ProviderError): ProviderOutcome => ({
  kind: "result",
  result: { ok: false, error, latency_us: 80 } satisfies InvokeResult,
});

describe("settle (docs/contract.md#delivery)", () => {
  it("succeeds with the output when it matches the output schema", () => {
    expect(settle(ok({ total: 3, unit: "ms" }), ctx())).toEqual({
      status: "succeeded",
      output: { total: 3, unit: "ms" },
    });
  });

  it("fails with invalid_output listing every violation when the output breaks its schema", () => {
    const settlement = settle(ok({ total: "three", extra: 1 }), ctx());
    expect(settlement.status).toBe("failed");
    expect(settlement.output).toBeUndefined();
    expect(settlement.error).toMatchObject({ code: "invalid_output", type: "execution_error", retryable: false });
    const violations = settlement.error?.details?.violations as { path: string; keyword: string }[];
    expect(violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "/total", keyword: "type" }),
        expect.objectContaining({ path: "/unit", keyword: "required" }),
        expect.objectContaining({ path: "/extra", keyword: "additionalProperties" }),
      ]),
    );
    expect(violations).toHaveLength(3);
  });

  it("fails with resource_exceeded when valid output is over max_output_bytes", () => {
    const output = { total: 1, unit: "x".repeat(2_000) };
    const bytes = new TextEncoder().encode(JSON.stringify(output)).byteLength;
    const settlement = settle(ok(output), ctx({ max_output_bytes: 1_024 }));
    expect(settlement.status).toBe("failed");
    expect(settlement.output).toBeUndefined();
    expect(settlement.error).toMatchObject({
      code: "resource_exceeded",
      retryable: false,
      details: { limit: 1_024, observed: bytes },
    });
  });

  it("counts output size in UTF-8 bytes, not characters", () => {
    const output = { total: 1, unit: "é".repeat(400) }; // 400 characters, 800 bytes
    expect(settle(ok(output), ctx({ max_output_bytes: 500 })).error?.code).toBe("resource_exceeded");
  });

  it("accepts output of exactly max_output_bytes", () => {
    const output = { total: 1, unit: "u" };
    const bytes = new TextEncoder().encode(JSON.stringify(output)).byteLength;
    expect(settle(ok(output), ctx({ max_output_bytes: bytes })).status).toBe("succeeded");
  });

  it("times out as retryable when the tool is idempotent", () => {
    expect(settle({ kind: "timeout" }, ctx({ idempotent: true, timeout_ms: 2_500 }))).toEqual({
      status: "timed_out",
      error: {
        code: "timeout",
        message: expect.stringContaining("2500 ms"),
        type: "execution_error",
        retryable: true,
        details: { timeout_ms: 2_500 },
      },
    });
  });

  it("times out as not retryable when the tool is not idempotent", () => {
    const settlement = settle({ kind: "timeout" }, ctx({ idempotent: false }));
    expect(settlement.status).toBe("timed_out");
    expect(settlement.error).toMatchObject({ code: "timeout", retryable: false });
  });

  it("treats a stop for timeout like a timeout", () => {
    expect(settle({ kind: "stopped", reason: "timeout" }, ctx({ idempotent: false }))).toMatchObject({
      status: "timed_out",
      error: { code: "timeout", retryable: false },
    });
  });

  it("ends a cancelled stop as cancelled", () => {
    expect(settle({ kind: "stopped", reason: "cancelled" }, ctx())).toMatchObject({
      status: "cancelled",
      error: { code: "cancelled", retryable: false },
    });
  });

  it("ends as cancelled when the provider reports cancellation", () => {
    expect(settle(providerError({ code: "cancelled", message: "stopped" }), ctx())).toMatchObject({
      status: "cancelled",
      error: { code: "cancelled" },
    });
  });

  it.each([true, false])(
    "keeps the provider's retryable=%s on a tool_error, whatever the tool's idempotency",
    (retryable) => {
      for (const idempotent of [true, false]) {
        const settlement = settle(
          providerError({ code: "tool_error", message: "upstream said no", retryable, details: { upstream: 503 } }),
          ctx({ idempotent }),
        );
        expect(settlement).toEqual({
          status: "failed",
          error: {
            code: "tool_error",
            message: "upstream said no",
            type: "execution_error",
            retryable,
            details: { upstream: 503 },
          },
        });
      }
    },
  );

  it("carries the tool's own error code as details.tool_code (docs/contract.md#errors, `tool_error`)", () => {
    const settlement = settle(
      providerError({
        code: "tool_error",
        message: "quota used up",
        tool_code: "quota_exhausted",
        details: { limit: 5 },
      }),
      ctx(),
    );
    expect(settlement.error).toMatchObject({ code: "tool_error", details: { limit: 5, tool_code: "quota_exhausted" } });
  });

  it("keeps a crash's reference into the provider's log", () => {
    const settlement = settle(
      providerError({
        code: "provider_crashed",
        message: "the handler failed (ref 0123456789abcdef)",
        details: { ref: "0123456789abcdef" },
      }),
      ctx(),
    );
    expect(settlement.error).toMatchObject({ code: "provider_crashed", details: { ref: "0123456789abcdef" } });
  });

  it("calls a tool_error without a retryable flag not retryable", () => {
    expect(settle(providerError({ code: "tool_error", message: "no" }), ctx()).error?.retryable).toBe(false);
  });

  it.each([true, false])(
    "turns a provider crash into provider_crashed, retryable=%s as the tool's idempotency",
    (idempotent) => {
      const settlement = settle(
        providerError({ code: "provider_crashed", message: "TypeError: x is undefined" }),
        ctx({ idempotent }),
      );
      expect(settlement).toMatchObject({
        status: "failed",
        error: { code: "provider_crashed", message: "TypeError: x is undefined", retryable: idempotent },
      });
    },
  );

  it.each([true, false])(
    "turns a failed RPC into its classified code, retryable=%s as the tool's idempotency, without the platform's text",
    (idempotent) => {
      const failure = classifyRpcFailure(new Error("Network connection lost."));
      const settlement = settle(
        { kind: "rpc_failed", failure, raw: "Error: Network connection lost." },
        ctx({ idempotent }),
      );
      expect(settlement.status).toBe("failed");
      expect(settlement.error).toMatchObject({
        code: "provider_crashed",
        retryable: idempotent,
        message: failure.message,
      });
      expect(settlement.error?.message).not.toContain("Network connection lost.");
    },
  );

  it("turns an unbound provider into sandbox_unavailable, saying when to try again", () => {
    const settlement = settle(
      { kind: "unbound", message: "the provider's Worker is not bound to this runtime" },
      ctx({ idempotent: true }),
    );
    expect(settlement).toEqual({
      status: "failed",
      error: {
        code: "sandbox_unavailable",
        message: "the provider's Worker is not bound to this runtime",
        type: "execution_error",
        retryable: true,
        details: { retry_after_ms: 5_000 },
      },
    });
  });

  it("reports a provider's tool_not_found as tool_not_found", () => {
    expect(settle(providerError({ code: "tool_not_found", message: "no such tool" }), ctx()).error?.code).toBe(
      "tool_not_found",
    );
  });

  it("refuses to settle output it has no validator for, as an internal error", () => {
    expect(() => settle(ok({ total: 1, unit: "u" }), ctx({ output_hash: "never-built" }))).toThrow(RuntimeError);
  });
});

const record = executionRecord;

describe("toView and httpStatusOf (docs/contract.md#response, docs/contract.md#statuses)", () => {
  it("shows a succeeded execution with its output, timings and HTTP 200", () => {
    const view = toView(
      record("succeeded", {
        provider: "std",
        scheduled_at: 10_003,
        running_at: 10_010,
        ended_at: 10_250,
        output: { total: 1, unit: "u" },
        partial_output: { total: 0 },
      }),
    );
    expect(view).toEqual({
      execution_id: expect.stringMatching(/^exec_/),
      tool: "math.sum",
      version: "1.2.0",
      status: "succeeded",
      output: { total: 1, unit: "u" },
      capability: expect.objectContaining({
        level1: expect.any(Object),
        level2: expect.any(Object),
        level3: expect.any(Object),
      }),
      execution: {
        sandbox: "v8-isolate",
        worker: "std",
        queued_ms: 3,
        started_ms: 10,
        duration_ms: 240,
        timeout_ms: 5_000,
        resources: { cpu_ms: null, peak_memory_mb: null, cpu_report: "none" },
      },
    });
    expect(httpStatusOf(view)).toBe(200);
  });

  it("shows null timings for stages an execution never reached", () => {
    const view = toView(record("queued"));
    expect(view.execution).toMatchObject({ worker: null, queued_ms: null, started_ms: null, duration_ms: null });
    expect(view).not.toHaveProperty("output");
    expect(view).not.toHaveProperty("error");
    expect(httpStatusOf(view)).toBe(200);
  });

  it("never shows a negative duration when clocks disagree", () => {
    const view = toView(record("failed", { scheduled_at: 9_000, running_at: 9_500, ended_at: 9_400 }));
    expect(view.execution).toMatchObject({ queued_ms: 0, started_ms: 0, duration_ms: 0 });
  });

  it("keeps partial output on an execution that did not succeed", () => {
    const error = { code: "timeout" as const, message: "late", type: "execution_error" as const, retryable: true };
    const view = toView(
      record("timed_out", { running_at: 10_001, ended_at: 15_001, partial_output: { total: 2 }, error }),
    );
    expect(view.partial_output).toEqual({ total: 2 });
    expect(view.error).toEqual(error);
    expect(httpStatusOf(view)).toBe(504);
  });

  it("shows how a cancelled execution's cancellation went", () => {
    const cancellation = { requested_at: "2026-11-30T10:00:00.000Z", outcome: "before_start" as const };
    const error = {
      code: "cancelled" as const,
      message: "the execution was cancelled",
      type: "execution_error" as const,
      retryable: false,
    };
    const view = toView(record("cancelled", { ended_at: 10_005, error, cancellation }));
    expect(view).toMatchObject({ status: "cancelled", cancellation, error });
    expect(httpStatusOf(view)).toBe(409);
  });

  it("leaves cancellation out of a view of an execution nobody cancelled", () => {
    expect(toView(record("running", { running_at: 10_001 }))).not.toHaveProperty("cancellation");
  });

  it.each([
    ["tool_error", 422],
    ["invalid_output", 502],
    ["cancelled", 409],
    ["sandbox_unavailable", 503],
    ["resource_exceeded", 400],
  ] as const)("answers an execution that ended in %s with HTTP %i", (code, status) => {
    const view = toView(record("failed", { error: { code, message: "m", type: "execution_error", retryable: false } }));
    expect(httpStatusOf(view)).toBe(status);
  });

  it("gives a settled failure the status its error code carries", () => {
    const settlement = settle(ok({ total: "bad" }), ctx());
    const view = toView(record(settlement.status, { error: settlement.error }));
    expect(view.status).toBe("failed");
    expect(httpStatusOf(view)).toBe(502);
  });
});
