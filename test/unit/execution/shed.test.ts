import { describe, expect, it } from "vitest";
import { RuntimeError } from "../../../src/errors.ts";
import type { ExecutionPlan } from "../../../src/execution/execution-plan.ts";
import { shedBelowMs, shedIfLate } from "../../../src/execution/shed.ts";
import { judge } from "../../../src/registry/health-reporter.ts";
import { classifyRpcFailure } from "../../../src/execution/provider-failure.ts";

const plan = (timeout_ms: number, accepted_at: number) => ({ timeout_ms, accepted_at }) as ExecutionPlan;

describe("shedding overload (the runtime's own time is not the provider's timeout)", () => {
  it("dispatches while at least a tenth of the budget (and 5 ms) is left", () => {
    expect(() => shedIfLate(plan(100, 0), 80)).not.toThrow();
    expect(shedBelowMs(100)).toBe(10);
    expect(shedBelowMs(20)).toBe(5);
  });

  it("refuses with overloaded, retryable and saying when, once the budget went to the runtime's own queues", () => {
    let err: unknown;
    try {
      shedIfLate(plan(100, 0), 95);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RuntimeError);
    expect((err as RuntimeError).toBody()).toMatchObject({
      code: "overloaded",
      retryable: true,
      details: { retry_after_ms: expect.any(Number), budget_left_ms: 5 },
    });
  });
});

describe("what an outcome says about the provider", () => {
  it("calls only an unreachable Worker a transport failure; a crash or a CPU limit is one failed call of a live provider", () => {
    expect(judge({ kind: "unbound", message: "not bound" }, undefined)).toEqual({ ok: false, transport: "not bound" });
    expect(
      judge(
        {
          kind: "rpc_failed",
          failure: classifyRpcFailure(new Error('Worker "x" not found. Make sure it is running locally.')),
          raw: "",
        },
        undefined,
      ),
    ).toMatchObject({ ok: false, transport: expect.any(String) });
    expect(
      judge(
        { kind: "rpc_failed", failure: classifyRpcFailure(new Error("Worker exceeded CPU time limit.")), raw: "" },
        undefined,
      ),
    ).toEqual({ ok: false });
    expect(judge({ kind: "stopped", reason: "cancelled" }, undefined)).toBeUndefined();
    expect(
      judge(
        { kind: "result", result: { ok: false, error: { code: "tool_error", message: "no" }, latency_us: 1 } },
        "tool_error",
      ),
    ).toEqual({ ok: true });
  });
});
