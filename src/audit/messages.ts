/**
 * What executions and edges send to the audit queue (docs/contract.md#audit). One
 * pipeline feeds the audit log, the execution index and the metrics, so they cannot disagree.
 * An execution sends one message, when it has ended; nothing is sent while it runs.
 */
import type {
  ApprovalDecision,
  AttemptRecord,
  CapabilityDecision,
  ExecutionIdentity,
  ExecutionMode,
  ExecutionStatus,
  IntentDecision,
} from "../contract.ts";
import type { UsageReport } from "./tail-reports.ts";

/**
 * One execution's entry in the audit log, sent when it has ended (`GET /v1/audit` answers it as
 * the contract's AuditRecord). Parameters appear only as a hash.
 */
export interface AuditEntry extends ExecutionIdentity {
  provider: string | null;
  mode: ExecutionMode;
  status: ExecutionStatus;
  error_code: string | null;
  accepted_at: number;
  ended_at: number;
  params_hash: string;
  latency_ms: number;
  attempts: AttemptRecord[];
  capability: CapabilityDecision;
  correlation_id: string | null;
  trace_id: string | null;
  /** A call that needed a person's approval: who decided, what, why and when (docs/contract.md#approvals). */
  approval?: ApprovalDecision;
}

export type AuditMessage =
  /**
   * An execution ended. `view` is the execution view (docs/contract.md#response) as JSON of an execution that ran at
   * the edge: the audit store is where GET finds it for the retention window. `view_stored`:
   * the view was too large for a message and the edge wrote it to the store itself.
   */
  | { kind: "finished"; record: AuditEntry; view?: string; view_stored?: boolean; retention_ms: number }
  /**
   * docs/contract.md#capabilities level 2 for a read-only tool: the verdict that arrived after its
   * execution was recorded. `tenant` names its audit shard (absent in messages of older runtimes).
   */
  | { kind: "intent"; execution_id: string; decision: IntentDecision; tenant?: string }
  /** Provider invocations' CPU reports (src/audit/tail.ts), kept until `expires_at` for the audit log and fast-path views. */
  | { kind: "usage"; reports: UsageReport[]; expires_at: number }
  /** Refusals at the edge (no execution exists), counted per isolate and sent in batches. */
  | { kind: "refusals"; id: string; counts: { tenant: string; tool: string; reason: string; n: number }[] }
  /**
   * Calls whose intent the verifier did not decide (it failed or was late), per effect, reason
   * (`error`, `timeout`) and what the operator's VERIFIER_FAILURE_POLICY did (`skip`, `refuse`).
   */
  | { kind: "intent_unverified"; id: string; counts: { effect: string; reason: string; action: string; n: number }[] };
