import { describe, expect, it } from "vitest";
import { errorBody } from "../../../src/errors.ts";
import type { Settlement } from "../../../src/execution/settle.ts";
import {
  backoffMs,
  DEFAULT_RETRY,
  providerLatencyMs,
  retryDecision,
  runAttempts,
  type RunAttemptsOptions,
} from "../../../src/execution/retry.ts";

type Provider = { provider: string; binding: string; trial: boolean };

const ok: Settlement = { status: "succeeded", output: {} };
const fail = (code: Parameters<typeof errorBody>[0], retryable?: boolean): Settlement => ({
  status: code === "timeout" ? "timed_out" : "failed",
  error: errorBody(code, code, undefined, retryable),
});

/** A clock that only moves when attempts take time or the driver sleeps. */
function harness(
  results: Settlement[],
  o: Partial<RunAttemptsOptions<Provider>> & { budget?: number; attemptMs?: number } = {},
) {
  let now = 0;
  const sleeps: number[] = [];
  const calls: { provider: string; timeout: number }[] = [];
  const retries: unknown[] = [];
  const options: RunAttemptsOptions<Provider> = {
    providers: [
      { provider: "a", binding: "A", trial: false },
      { provider: "b", binding: "B", trial: false },
    ],
    idempotent: true,
    policy: DEFAULT_RETRY,
    acceptedAt: 0,
    remainingMs: () => (o.budget ?? 10_000) - now,
    attemptCapMs: 1_000,
    attempt: async (provider, timeout) => {
      calls.push({ provider: provider.provider, timeout });
      now += o.attemptMs ?? 10;
      return { outcome: { kind: "timeout" }, settlement: results[Math.min(calls.length - 1, results.length - 1)] };
    },
    stopped: () => false,
    onRetry: (r) => retries.push(r),
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
    random: () => 1,
    now: () => now,
    ...o,
  };
  return { run: () => runAttempts(options), calls, sleeps, retries };
}

describe("retryDecision", () => {
  it("never retries a tool that is not idempotent", () => {
    expect(retryDecision(fail("provider_crashed"), false).retry).toBe(false);
  });

  it("retries timeouts and crashes on the next provider, a retryable tool error on the same one", () => {
    expect(retryDecision(fail("timeout"), true)).toEqual({ retry: true, nextProvider: true });
    expect(retryDecision(fail("provider_crashed"), true)).toEqual({ retry: true, nextProvider: true });
    expect(retryDecision(fail("tool_error", true), true)).toEqual({ retry: true, nextProvider: false });
  });

  it("does not retry what another try cannot fix", () => {
    for (const code of ["invalid_output", "resource_exceeded", "tool_not_found"] as const)
      expect(retryDecision(fail(code), true).retry).toBe(false);
    expect(retryDecision(fail("tool_error", false), true).retry).toBe(false);
    expect(retryDecision(ok, true).retry).toBe(false);
  });
});

describe("backoff with full jitter", () => {
  it("doubles its ceiling each retry up to the cap, and picks uniformly below it", () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffMs(n, DEFAULT_RETRY, () => 0.999999))).toEqual([
      99, 199, 399, 799, 1599, 1999,
    ]);
    expect(backoffMs(3, DEFAULT_RETRY, () => 0)).toBe(0);
  });
});

describe("runAttempts", () => {
  it("retries until success and records every attempt", async () => {
    const h = harness([fail("provider_crashed"), fail("provider_crashed"), ok]);
    const r = await h.run();
    expect(r.settlement).toBe(ok);
    expect(r.attempts.map((a) => a.outcome)).toEqual(["provider_crashed", "provider_crashed", "succeeded"]);
    expect(h.sleeps).toEqual([100, 200]);
    expect(h.calls.map((c) => c.provider)).toEqual(["a", "b", "b"]); // moved on after a crash; no third provider
  });

  it("stops at max_attempts", async () => {
    const h = harness([fail("timeout")]);
    const r = await h.run();
    expect(r.attempts).toHaveLength(3);
    expect(r.settlement.error?.code).toBe("timeout");
  });

  it("gives a single attempt the whole budget, and holds attempts to the cap when retries are possible", async () => {
    const single = harness([ok], { idempotent: false, budget: 5_000 });
    await single.run();
    expect(single.calls[0].timeout).toBe(5_000);
    const retried = harness([ok], { budget: 5_000 });
    await retried.run();
    expect(retried.calls[0].timeout).toBe(1_000);
  });

  it("never waits past the budget", async () => {
    const h = harness([fail("provider_crashed")], { budget: 150, attemptMs: 60 });
    const r = await h.run();
    expect(r.attempts).toHaveLength(1); // 90 ms left, a 100 ms wait would leave nothing
    expect(h.sleeps).toEqual([]);
  });

  it("starts no further attempt once the execution is cancelled", async () => {
    let cancelled = false;
    const h = harness([fail("provider_crashed")], { stopped: () => cancelled, onRetry: () => (cancelled = true) });
    const r = await h.run();
    expect(r.attempts).toHaveLength(1);
  });
});

describe("the provider's own latency beside the runtime's (docs/contract.md#delivery)", () => {
  const result = (latency_us: unknown) => ({
    kind: "result" as const,
    result: { ok: true as const, output: {}, latency_us: latency_us as number },
  });

  it("records each attempt's latency_us in milliseconds, and null when the provider gave no answer", async () => {
    const outcomes = [{ kind: "timeout" as const }, result(12_345)];
    let n = 0;
    const h = harness([fail("timeout"), ok], {
      attempt: async () => {
        const outcome = outcomes[n];
        return { outcome, settlement: [fail("timeout"), ok][n++] };
      },
    });
    const r = await h.run();
    expect(r.attempts.map((a) => a.provider_latency_ms)).toEqual([null, 12.345]);
    expect(r.attempts.map((a) => a.cpu_ms)).toEqual([null, null]);
  });

  it("ignores a figure that is not a non-negative number", () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, "7", undefined])
      expect(providerLatencyMs(result(bad))).toBeNull();
    expect(providerLatencyMs(result(0))).toBe(0);
    expect(
      providerLatencyMs({ kind: "rpc_failed", failure: { code: "provider_crashed", message: "x" }, raw: "x" } as never),
    ).toBeNull();
  });
});
