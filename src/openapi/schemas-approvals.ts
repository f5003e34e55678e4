/**
 * Component schemas of a person's approval of a held call (docs/contract.md#approvals): the
 * state on the execution, the pending list and the approver's request.
 */
import { all, anyJson, int, nullable, object, oneOfStrings, ref, str, time } from "./schema-builders.ts";

const effects = oneOfStrings(["read", "write", "delete", "send"]);
/** A person's decision on a call that needed approval (docs/contract.md#approvals). */
const approvalDecision = all({
  decision: oneOfStrings(["approved", "rejected"]),
  approver: { ...str, description: "the approver's agent" },
  reason: nullable(str),
  at: time,
});

export const ApprovalState = all({
  expires_at: { ...time, description: "When an undecided approval expires (approval_expired)." },
  rule: { ...str, description: 'The tenant\'s rule that matched, e.g. "effect delete" or "tool lab.erase".' },
  decision: { oneOf: [approvalDecision, { type: "null" }] },
});
export const ApprovalDecision = approvalDecision;
export const PendingApproval = all({
  execution_id: ref("ExecutionId"),
  tool: str,
  version: str,
  effects,
  agent: { ...str, description: "The agent that made the call." },
  project: nullable(str),
  rule: str,
  input: { ...anyJson, description: "The validated input when its JSON is at most 16 KiB; otherwise null." },
  input_bytes: int,
  accepted_at: time,
  expires_at: time,
});
export const ApprovalList = all({ approvals: { type: "array", items: ref("PendingApproval") } });
export const ApprovalRequest = object(
  { reason: { type: "string", maxLength: 1000, description: "Why (required to reject)." } },
  [],
);
