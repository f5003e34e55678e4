/** The rules of waiting (docs/contract.md#waiting), pure: how long each wait may last and how it ends. */
import { describe, expect, it } from "vitest";
import type { ExecutionPlan } from "../../../src/execution/execution-plan.ts";
import {
  approvalExpiry,
  cancelledBeforeStart,
  mayWait,
  SYNC_WAIT_MIN_MS,
  waitEndsAt,
  waitExpiredError,
  waitingNote,
} from "../../../src/execution/waiting.ts";
import { DEFAULT_TENANT_LIMITS } from "../../../src/policy/limits.ts";
import { executionRecord } from "../../fixtures/record.ts";

const plan = (o: Partial<ExecutionPlan> = {}) =>
  ({
    mode: "async",
    accepted_at: 10_000,
    timeout_ms: 30_000,
    limits: { ...DEFAULT_TENANT_LIMITS, max_wait_ms: 60_000 },
    ...o,
  }) as ExecutionPlan;

describe("waiting", () => {
  it("lets async calls wait, and sync calls only with at least SYNC_WAIT_MIN_MS of budget left", () => {
    expect(mayWait(plan(), 10_000_000)).toBe(true);
    expect(mayWait(plan({ mode: "sync" }), 10_000)).toBe(true);
    expect(mayWait(plan({ mode: "sync", timeout_ms: SYNC_WAIT_MIN_MS - 1 }), 10_000)).toBe(false);
  });

  it("bounds a sync call's wait by its budget (less what dispatch needs), an async one's by max_wait_ms", () => {
    const queued = executionRecord("queued", { accepted_at: 10_000 });
    expect(waitEndsAt(queued, plan({ mode: "sync" }))).toBe(10_000 + 30_000 - 3_000);
    expect(waitEndsAt(queued, plan())).toBe(10_000 + 60_000);
  });

  it("counts an approved async call's wait for a slot from the decision, not from acceptance", () => {
    const approved = executionRecord("queued", {
      accepted_at: 10_000,
      approval: {
        rule: "effect delete",
        expires_at: 99_000,
        decision: { decision: "approved", approver: "a", reason: null, at: new Date(50_000).toISOString() },
      },
    });
    expect(waitEndsAt(approved, plan())).toBe(50_000 + 60_000);
  });

  it("ends the approval window at its end, or a sync caller's budget if sooner", () => {
    expect(approvalExpiry(plan(), 5_000, 12_000)).toBe(17_000);
    expect(approvalExpiry(plan({ mode: "sync" }), 3_600_000, 12_000)).toBe(10_000 + 30_000 - 3_000);
  });

  it("ends an expired approval with approval_expired, and a long wait for a slot or room with overloaded", () => {
    const awaiting = executionRecord("awaiting_approval", { approval: { rule: "effect send", expires_at: 20_000 } });
    expect(waitExpiredError(awaiting, plan(), 20_000)).toMatchObject({
      code: "approval_expired",
      retryable: true,
      details: { rule: "effect send" },
    });
    expect(waitExpiredError(executionRecord("queued", { accepted_at: 0 }), plan(), 70_000)).toMatchObject({
      code: "overloaded",
      details: { reason: "queue_wait", waited_ms: 70_000 },
    });
    expect(waitExpiredError(executionRecord("scheduled", { accepted_at: 0 }), plan(), 70_000)).toMatchObject({
      code: "overloaded",
      details: { reason: "provider_full" },
    });
  });

  it("cancels a waiting execution at once with outcome before_start and no start time", () => {
    const ended = cancelledBeforeStart(executionRecord("queued"), 12_345);
    expect(ended).toMatchObject({
      status: "cancelled",
      running_at: null,
      ended_at: 12_345,
      cancellation: { outcome: "before_start" },
      error: { code: "cancelled" },
    });
  });

  it("says where a call waits, and its place when it has one", () => {
    expect(waitingNote("queued", 2)).toEqual({
      message: "waiting for a free slot of its tenant, position 2",
      waiting: "queued",
      position: 2,
    });
    expect(waitingNote("scheduled", undefined, "lab")).toEqual({
      message: "waiting for room at provider lab",
      waiting: "scheduled",
      provider: "lab",
    });
  });
});
