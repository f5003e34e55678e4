/** A person's approval of a call (docs/contract.md#approvals): the decision, the view's part, the pending list's row. */
import type { Effect, Value } from "../../providers/sdk/protocol.ts";

/** A person's decision on a call that needed approval (docs/contract.md#approvals). */
export interface ApprovalDecision {
  decision: "approved" | "rejected";
  /** Who decided: the approver's agent (the key's or the token's subject). */
  approver: string;
  reason: string | null;
  /** ISO 8601. */
  at: string;
}

/** The approval part of an execution's view. */
export interface ApprovalState {
  /** ISO 8601: when an undecided approval expires (`approval_expired`). */
  expires_at: string;
  /** Why approval was needed: the tenant's rule that matched ("effect delete", "tool lab.erase"). */
  rule: string;
  decision: ApprovalDecision | null;
}

/** One pending approval, as `GET /v1/approvals` lists it to a tenant's approvers. */
export interface PendingApproval {
  execution_id: string;
  tool: string;
  version: string;
  effects: Effect;
  /** The agent that made the call. */
  agent: string;
  project: string | null;
  rule: string;
  /** The validated input, when its JSON is at most 16 KiB; otherwise null (see `input_bytes`). */
  input: Value;
  input_bytes: number;
  accepted_at: string;
  expires_at: string;
}
