/** A call that waits for a person (docs/contract.md#approvals), pure: what approvers see, the wait's record, how a decision lands. */
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../../../src/contract.ts";
import {
  APPROVAL_INPUT_BYTES,
  approvalRequested,
  approvedNote,
  awaitingApproval,
  decided,
  decisionRefused,
  pendingApproval,
} from "../../../src/execution/approval-wait.ts";
import type { ExecutionPlan } from "../../../src/execution/execution-plan.ts";
import { executionRecord } from "../../fixtures/record.ts";

const plan = (input: unknown) =>
  ({
    execution_id: "exec_1",
    tenant: "t",
    agent: "maker",
    project: null,
    face: "rest",
    tool: "lab.erase",
    version: "1.0.0",
    mode: "async",
    effects: "delete",
    input,
    accepted_at: 10_000,
    timeout_ms: 5_000,
    trace: { trace_id: "1".repeat(32) },
    approval: { rule: "effect delete", window_ms: 60_000 },
  }) as ExecutionPlan;

const waiting = () =>
  executionRecord("awaiting_approval", { agent: "maker", approval: { rule: "effect delete", expires_at: 70_000 } });
const decision = (d: Partial<ApprovalDecision> = {}): ApprovalDecision => ({
  decision: "approved",
  approver: "boss",
  reason: null,
  at: "2026-01-01T00:00:00.000Z",
  ...d,
});

describe("approval wait", () => {
  it("shows approvers the input up to APPROVAL_INPUT_BYTES of JSON, and only its size beyond", () => {
    const small = pendingApproval(plan({ path: "/a" }), 70_000);
    expect(small).toMatchObject({
      execution_id: "exec_1",
      tool: "lab.erase",
      agent: "maker",
      mode: "async",
      rule: "effect delete",
      input: { path: "/a" },
      input_bytes: JSON.stringify({ path: "/a" }).length,
      accepted_at: new Date(10_000).toISOString(),
      expires_at: new Date(70_000).toISOString(),
    });
    const big = "x".repeat(APPROVAL_INPUT_BYTES);
    expect(pendingApproval(plan(big), 70_000)).toMatchObject({ input: null, input_bytes: big.length + 2 });
    expect(pendingApproval(plan(undefined), 70_000)).toMatchObject({ input_bytes: 4 });
  });

  it("records the wait with its rule and the end of its window, and says so", () => {
    const record = awaitingApproval(plan(1), 12_000, 70_000);
    expect(record).toMatchObject({
      status: "awaiting_approval",
      approval: { rule: "effect delete", expires_at: 70_000 },
      accepted_at: 10_000,
    });
    expect(approvalRequested(plan(1), 70_000)).toEqual({
      message: "waiting for a person to approve the call (effect delete)",
      approval: "requested",
      rule: "effect delete",
      expires_at: new Date(70_000).toISOString(),
    });
  });

  it("refuses the maker's own decision unless self approval is on, and any decision on what is not pending", () => {
    const own = decisionRefused(waiting(), decision({ approver: "maker" }), false);
    expect(own).toMatchObject({ ok: false, error: { code: "forbidden", details: { reason: "self approval" } } });
    expect(decisionRefused(waiting(), decision({ approver: "maker" }), true)).toBeUndefined();
    expect(decisionRefused(waiting(), decision(), false)).toBeUndefined();
    const queued = executionRecord("queued");
    expect(decisionRefused(queued, decision(), false)).toMatchObject({
      ok: false,
      error: { code: "approval_not_pending", details: { status: "queued", decision: null } },
    });
    const already = decided(waiting(), decision({ decision: "rejected", reason: "no" }));
    const again = decisionRefused(already, decision(), false);
    expect(again).toMatchObject({ error: { code: "approval_not_pending", details: { decision: "rejected" } } });
    expect(again?.ok === false && again.error.message).toBe("the call was already rejected");
  });

  it("sends an approved call on to its tenant's queue, and ends a rejected one failed at the decision's time", () => {
    const approved = decided(waiting(), decision({ reason: "fine" }));
    expect(approved).toMatchObject({
      status: "queued",
      approval: { rule: "effect delete", decision: { approver: "boss" } },
    });
    const rejected = decided(waiting(), decision({ decision: "rejected", reason: "too risky" }));
    expect(rejected).toMatchObject({
      status: "failed",
      ended_at: Date.parse("2026-01-01T00:00:00.000Z"),
      error: { code: "approval_rejected", details: { approver: "boss", reason: "too risky" } },
      approval: { decision: { decision: "rejected" } },
    });
    expect(approvedNote(decision({ reason: "fine" }))).toEqual({
      message: "approved by boss",
      approval: "approved",
      approver: "boss",
      reason: "fine",
    });
    expect(approvedNote(decision())).not.toHaveProperty("reason");
  });
});
