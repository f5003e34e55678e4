/**
 * The execution record and its state machine (docs/contract.md#statuses, with approval before it, docs/contract.md#approvals):
 *   (awaiting_approval →) queued → scheduled → running → succeeded | failed | cancelled | timed_out
 * Anything that waits can also end at once: cancelled (`before_start`) or failed (rejected,
 * expired, waited past its bound).
 * Every change of status goes through `transition`, which refuses illegal moves, so no code
 * path can resurrect a finished execution or finish one twice. The record is the single
 * source of an execution's view, of its `start` and terminal stream events, and of its audit
 * record; it is the same whether the execution ran at the edge or in its object.
 */
import type {
  ApprovalDecision,
  AttemptRecord,
  Cancellation,
  CapabilityDecision,
  ExecutionIdentity,
  ExecutionMode,
  ExecutionStatus,
  ExecutionView,
  Value,
} from "../contract.ts";
import { TERMINAL_STATUSES, WAITING_STATUSES } from "../contract.ts";
import { statusOf, type ErrorBody } from "../errors.ts";
import type { Effect, PartialMerge } from "../../providers/sdk/protocol.ts";
import { attemptsWithUsage, resourcesOf, type AttemptUsage } from "./usage.ts";

export interface ExecutionRecord extends ExecutionIdentity {
  mode: ExecutionMode;
  status: ExecutionStatus;
  /** The provider that was called (null until one is). */
  provider: string | null;
  timeout_ms: number;
  idempotent: boolean;
  effects: Effect;
  capability: CapabilityDecision;
  accepted_at: number;
  scheduled_at: number | null;
  running_at: number | null;
  ended_at: number | null;
  /** How long the record is kept after it ends. */
  retention_ms: number;
  output?: Value;
  partial_output?: Value;
  error?: ErrorBody;
  cancellation?: Cancellation;
  /** Every attempt so far (the retry engine; docs/contract.md#retries). */
  attempts: AttemptRecord[];
  /**
   * The stream's numbering (docs/contract.md#streaming): `start` and the terminal event are views of this record,
   * never stored; `start_seq` is the start's number once running, `last_seq` the highest number
   * given to any event so far. The terminal event is `last_seq + 1`.
   */
  start_seq: number | null;
  last_seq: number;
  /** Events refused by the log's bounds (counted in the terminal event). */
  dropped_events?: number;
  /** How `partial` events merge (docs/contract.md#partial-output), so a restarted object rebuilds the same partial output. */
  partial_merge: PartialMerge;
  /** For the audit log (never the input itself), the trace and the caller's correlation id. */
  params_hash: string;
  trace_id: string;
  correlation_id: string | null;
  /** A keyed call: the key, what was asked, and until when the key is bound. */
  idempotency?: { key: string; fingerprint: string; expires_at: number };
  /** A call that needed a person's approval (docs/contract.md#approvals): the rule, the window's end, the decision. */
  approval?: { rule: string; expires_at: number; decision?: ApprovalDecision };
}

const NEXT: Record<ExecutionStatus, readonly ExecutionStatus[]> = {
  awaiting_approval: ["queued", "cancelled", "failed"],
  queued: ["scheduled", "cancelled", "failed"],
  scheduled: ["running", "cancelled", "failed", "timed_out"],
  running: ["succeeded", "failed", "cancelled", "timed_out"],
  succeeded: [],
  failed: [],
  cancelled: [],
  timed_out: [],
};

export class IllegalTransition extends Error {
  constructor(from: ExecutionStatus, to: ExecutionStatus) {
    super(`illegal execution transition ${from} → ${to}`);
    this.name = "IllegalTransition";
  }
}

export function isTerminal(status: ExecutionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Returns the record in its new status with the matching timestamp set; throws on an illegal move. */
export function transition(
  record: ExecutionRecord,
  to: ExecutionStatus,
  at: number,
  fields: Partial<
    Pick<
      ExecutionRecord,
      | "output"
      | "partial_output"
      | "error"
      | "provider"
      | "cancellation"
      | "attempts"
      | "start_seq"
      | "last_seq"
      | "approval"
    >
  > = {},
): ExecutionRecord {
  if (!NEXT[record.status].includes(to)) throw new IllegalTransition(record.status, to);
  const next: ExecutionRecord = { ...record, ...fields, status: to };
  if (to === "scheduled") next.scheduled_at = at;
  if (to === "running") next.running_at = at;
  if (isTerminal(to)) next.ended_at = at;
  return next;
}

/** Whether the execution waits: nothing has been sent to a provider (docs/contract.md#waiting). */
export function isWaiting(status: ExecutionStatus): boolean {
  return WAITING_STATUSES.includes(status);
}

/**
 * docs/contract.md#response, docs/contract.md#statuses: what GET and a sync POST return, with the CPU reports that have arrived
 * (usage.ts). `position` is the execution's place in the queue it waits in (its tenant's while
 * queued, its provider's while scheduled), when known.
 */
export function toView(record: ExecutionRecord, usage: readonly AttemptUsage[] = [], position?: number): ExecutionView {
  const since = (from: number | null, to: number | null) =>
    from === null || to === null ? null : Math.max(0, to - from);
  return {
    execution_id: record.execution_id,
    tool: record.tool,
    version: record.version,
    status: record.status,
    ...(record.output !== undefined ? { output: record.output } : {}),
    ...(record.partial_output !== undefined && record.status !== "succeeded"
      ? { partial_output: record.partial_output }
      : {}),
    ...(record.error ? { error: record.error } : {}),
    ...(record.cancellation ? { cancellation: record.cancellation } : {}),
    capability: record.capability,
    ...(record.attempts.length > 0 ? { attempts: attemptsWithUsage(record.attempts, usage) } : {}),
    ...(position !== undefined && (record.status === "queued" || record.status === "scheduled") ? { position } : {}),
    ...(record.approval
      ? {
          approval: {
            expires_at: new Date(record.approval.expires_at).toISOString(),
            rule: record.approval.rule,
            decision: record.approval.decision ?? null,
          },
        }
      : {}),
    execution: {
      sandbox: "v8-isolate",
      worker: record.provider,
      queued_ms: since(record.accepted_at, record.scheduled_at),
      started_ms: since(record.accepted_at, record.running_at),
      duration_ms: since(record.running_at, record.ended_at),
      timeout_ms: record.timeout_ms,
      resources: resourcesOf(usage),
    },
  };
}

/** HTTP status of a view: 200 unless it ended in an error, then that error's status. */
export function httpStatusOf(view: ExecutionView): number {
  return view.error ? statusOf(view.error.code) : 200;
}
