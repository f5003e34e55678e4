/**
 * A call that waits for a person (docs/contract.md#approvals), pure: what its tenant's approvers
 * are shown, the record and the events of the wait, and how a decision lands. The execution object
 * (durable-objects/execution-object.ts) applies these; src/execution/waiting.ts bounds the wait.
 */
import type { ApprovalDecision, ExecutionView, Outcome, PendingApproval, Value } from "../contract.ts";
import { errorBody } from "../errors.ts";
import { toJson } from "../codec/bytes.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { transition, type ExecutionRecord } from "./record.ts";
import { newRecord } from "./run-records.ts";
import { refusal } from "./object-answers.ts";

/** An approver sees the input of a pending call up to this size (larger ones: its size only). */
export const APPROVAL_INPUT_BYTES = 16 * 1024;

/** The call as its tenant's pending approvals list it, until `expires`. */
export function pendingApproval(planned: ExecutionPlan, expires: number): PendingApproval & { mode: string } {
  const inputJson = toJson(planned.input ?? null);
  return {
    execution_id: planned.execution_id,
    tool: planned.tool,
    version: planned.version,
    effects: planned.effects,
    agent: planned.agent,
    project: planned.project,
    mode: planned.mode,
    rule: planned.approval!.rule,
    input: inputJson.length <= APPROVAL_INPUT_BYTES ? (planned.input as Value) : null,
    input_bytes: inputJson.length,
    accepted_at: new Date(planned.accepted_at).toISOString(),
    expires_at: new Date(expires).toISOString(),
  };
}

/** The record of a call that waits for a person until `expires`. */
export function awaitingApproval(planned: ExecutionPlan, now: number, expires: number): ExecutionRecord {
  return {
    ...newRecord(planned, now),
    status: "awaiting_approval",
    approval: { rule: planned.approval!.rule, expires_at: expires },
  };
}

/** The `log` event's data that says the call waits for a person. */
export function approvalRequested(planned: ExecutionPlan, expires: number): Record<string, Value> {
  return {
    message: `waiting for a person to approve the call (${planned.approval!.rule})`,
    approval: "requested",
    rule: planned.approval!.rule,
    expires_at: new Date(expires).toISOString(),
  };
}

/**
 * Why this decision changes nothing, if it does not: the agent that made the call does not decide
 * it (four eyes) unless APPROVALS allows it, and only a pending approval is decided.
 */
export function decisionRefused(
  record: ExecutionRecord,
  decision: ApprovalDecision,
  selfApproval: boolean,
): Outcome<ExecutionView> | undefined {
  if (!selfApproval && record.agent === decision.approver) {
    return refusal("forbidden", "an approver does not decide its own call (APPROVALS self_approval is off)", {
      reason: "self approval",
      execution_id: record.execution_id,
    });
  }
  if (record.status === "awaiting_approval") return undefined;
  return refusal(
    "approval_not_pending",
    record.approval?.decision
      ? `the call was already ${record.approval.decision.decision}`
      : `the execution is ${record.status}, not awaiting approval`,
    {
      status: record.status,
      decision: record.approval?.decision?.decision ?? null,
    },
  );
}

/** The record after the decision: rejected, it ends `failed` (`approval_rejected`); approved, it goes on to its tenant's queue. */
export function decided(record: ExecutionRecord, decision: ApprovalDecision): ExecutionRecord {
  const approval = { ...record.approval!, decision };
  const now = Date.parse(decision.at);
  if (decision.decision === "approved") return transition(record, "queued", now, { approval });
  const error = errorBody("approval_rejected", `${decision.approver} rejected the call: ${decision.reason}`, {
    approver: decision.approver,
    reason: decision.reason,
  });
  return transition(record, "failed", now, { error, approval });
}

/** The `log` event's data that says the call was approved. */
export function approvedNote(decision: ApprovalDecision): Record<string, Value> {
  return {
    message: `approved by ${decision.approver}`,
    approval: "approved",
    approver: decision.approver,
    ...(decision.reason ? { reason: decision.reason } : {}),
  };
}
