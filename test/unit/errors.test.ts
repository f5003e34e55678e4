import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_AFTER_MS } from "../../src/retry-after.ts";
import { ERROR_TABLE, errorBody, isErrorCode, RuntimeError, statusOf, type ErrorCode } from "../../src/errors.ts";

/** The original ten codes of docs/contract.md#errors: code, HTTP status, retryable ("maybe" is the tool's call; false by default). */
const ORIGINAL_CODES: ReadonlyArray<[ErrorCode, number, boolean]> = [
  ["unauthenticated", 401, false],
  ["forbidden", 403, false],
  ["tool_not_found", 404, false],
  ["invalid_input", 400, false],
  ["invalid_output", 502, false],
  ["timeout", 504, true],
  ["resource_exceeded", 400, false],
  ["sandbox_unavailable", 503, true],
  ["tool_error", 422, false],
  ["rate_limited", 429, true],
];

describe("ERROR_TABLE (docs/contract.md#errors)", () => {
  it.each(ORIGINAL_CODES)("maps %s to HTTP %i, retryable %s", (code, status, retryable) => {
    expect(isErrorCode(code)).toBe(true);
    expect(statusOf(code)).toBe(status);
    const err = new RuntimeError(code, "m");
    expect(err.status).toBe(status);
    expect(err.retryable).toBe(retryable);
    expect(err.toBody().retryable).toBe(retryable);
  });

  it("files every original code under the error type its family implies", () => {
    const types = Object.fromEntries(ORIGINAL_CODES.map(([code]) => [code, ERROR_TABLE[code].type]));
    expect(types).toEqual({
      unauthenticated: "auth_error",
      forbidden: "auth_error",
      tool_not_found: "registry_error",
      invalid_input: "request_error",
      invalid_output: "execution_error",
      timeout: "execution_error",
      resource_exceeded: "execution_error",
      sandbox_unavailable: "execution_error",
      tool_error: "execution_error",
      rate_limited: "request_error",
    });
  });

  it("gives every code a status in the 4xx or 5xx range", () => {
    for (const [code, rule] of Object.entries(ERROR_TABLE)) {
      expect([code, rule.status >= 400 && rule.status < 600]).toEqual([code, true]);
    }
  });

  it("knows its own codes and nothing else", () => {
    expect(isErrorCode("payload_too_large")).toBe(true);
    expect(isErrorCode("teapot")).toBe(false);
    expect(isErrorCode("toString")).toBe(false);
    expect(isErrorCode(404)).toBe(false);
  });
});

describe("RuntimeError", () => {
  it("renders the error body shape (docs/contract.md#errors)", () => {
    const err = new RuntimeError("resource_exceeded", "Execution exceeded memory limit (1Gi).", {
      limit: "1Gi",
      observed: "1.1Gi",
    });
    expect(err.toBody()).toEqual({
      code: "resource_exceeded",
      message: "Execution exceeded memory limit (1Gi).",
      type: "execution_error",
      retryable: false,
      details: { limit: "1Gi", observed: "1.1Gi" },
    });
  });

  it("omits details when there are none", () => {
    const body = new RuntimeError("forbidden", "no").toBody();
    expect(body).toEqual({ code: "forbidden", message: "no", type: "auth_error", retryable: false });
    expect("details" in body).toBe(false);
  });

  it("omits details when they are an empty object", () => {
    expect("details" in new RuntimeError("internal", "x", {}).toBody()).toBe(false);
  });

  it("lets a caller override the table's retryable, as tool_error's 'maybe' needs", () => {
    const err = new RuntimeError("tool_error", "upstream 503", undefined, true);
    expect(err.retryable).toBe(true);
    expect(err.toBody().retryable).toBe(true);
    expect(err.status).toBe(422);
  });

  it("is an Error with its message and name", () => {
    const err = new RuntimeError("timeout", "too slow");
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("RuntimeError");
    expect(err.message).toBe("too slow");
  });
});

describe("errorBody", () => {
  it("takes type and retryable from the table unless told otherwise", () => {
    expect(errorBody("tool_not_found", "which?")).toEqual({
      code: "tool_not_found",
      message: "which?",
      type: "registry_error",
      retryable: false,
    });
    expect(errorBody("timeout", "late", { timeout_ms: 5 }, false)).toEqual({
      code: "timeout",
      message: "late",
      type: "execution_error",
      retryable: false,
      details: { timeout_ms: 5 },
    });
  });
});

describe("errorBody of a 429 or 503", () => {
  it("always says when to try again: the given retry_after_ms, else the default", () => {
    expect(errorBody("rate_limited", "slow down")).toEqual({
      code: "rate_limited",
      message: "slow down",
      type: "request_error",
      retryable: true,
      details: { retry_after_ms: DEFAULT_RETRY_AFTER_MS },
    });
    expect(errorBody("sandbox_unavailable", "gone", { provider: "p" }).details).toEqual({
      provider: "p",
      retry_after_ms: DEFAULT_RETRY_AFTER_MS,
    });
    expect(errorBody("overloaded", "busy", { retry_after_ms: 1_000 }).details).toEqual({ retry_after_ms: 1_000 });
    expect(new RuntimeError("no_healthy_provider", "none", { retry_after_ms: 2_500 }).toBody().details).toEqual({
      retry_after_ms: 2_500,
    });
  });

  it("adds nothing to other statuses", () => {
    expect("details" in errorBody("timeout", "late")).toBe(false);
    expect(errorBody("invalid_input", "bad", { violations: [] }).details).toEqual({ violations: [] });
  });
});
