import { describe, expect, it } from "vitest";
import { respond } from "../../src/codec/negotiate.ts";
import { errorBody } from "../../src/errors.ts";
import { DEFAULT_RETRY_AFTER_MS, retryAfterHeaders, retryAfterSeconds } from "../../src/retry-after.ts";

describe("Retry-After", () => {
  it("is whole seconds, rounded up, at least 1", () => {
    expect(retryAfterSeconds(1)).toBe("1");
    expect(retryAfterSeconds(0)).toBe("1");
    expect(retryAfterSeconds(1_000)).toBe("1");
    expect(retryAfterSeconds(1_001)).toBe("2");
    expect(retryAfterSeconds(29_400)).toBe("30");
    expect(retryAfterSeconds(undefined)).toBe(String(DEFAULT_RETRY_AFTER_MS / 1000));
  });

  it("goes on every 429 and 503, from a refusal's envelope or a finished execution's error", () => {
    expect(retryAfterHeaders(429, { error: errorBody("rate_limited", "slow", { retry_after_ms: 1_200 }) })).toEqual({
      "Retry-After": "2",
    });
    expect(
      retryAfterHeaders(503, {
        execution_id: "exec_1",
        status: "failed",
        error: errorBody("overloaded", "busy", { retry_after_ms: 1_000 }),
      }),
    ).toEqual({ "Retry-After": "1" });
    // A 503 without an error (a /readyz that is not ready): the default.
    expect(retryAfterHeaders(503, { status: "not_ready" })).toEqual({ "Retry-After": "5" });
  });

  it("goes on no other status", () => {
    for (const status of [200, 202, 400, 404, 500, 502, 504])
      expect(retryAfterHeaders(status, { error: { details: { retry_after_ms: 1_000 } } })).toEqual({});
  });

  it("is added by respond, the one place REST answers are made, in JSON and MessagePack alike", () => {
    const error = errorBody("no_healthy_provider", "none", { retry_after_ms: 4_100 });
    expect(respond("json", { error }, 503).headers.get("retry-after")).toBe("5");
    expect(respond("msgpack", { error }, 503).headers.get("retry-after")).toBe("5");
    expect(respond("json", { ok: true }, 200).headers.get("retry-after")).toBeNull();
  });
});
