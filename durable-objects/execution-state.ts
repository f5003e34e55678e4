/**
 * The execution record and its state machine (TRT-002 §9):
 *   queued → scheduled → running → succeeded | failed | cancelled | timed_out
 * Every change of status goes through `transition`, which refuses illegal moves, so no code
 * path can resurrect a finished execution or finish one twice.
 */
import type { Cancellation, ExecutionMode, ExecutionStatus } from "../src/contract.ts";
import { TERMINAL_STATUSES } from "../src/contract.ts";
import type { ErrorBody } from "../src/errors.ts";
import type { Effect } from "../providers/sdk/protocol.ts";
import type { CapabilityDecision } from "../src/pipeline/capability.ts";
import type { AttemptRecord } from "../src/pipeline/retry.ts";

export interface ExecutionRecord {
  execution_id: string;
  tenant: string;
  agent: string;
  tool: string;
  version: string;
  mode: ExecutionMode;
  status: ExecutionStatus;
  /** The provider that was called (null until one is). */
  provider: string | null;
  timeout_ms: number;
  idempotent: boolean;
  effects: Effect;
  output_hash: string;
  max_output_bytes: number;
  capability: CapabilityDecision;
  accepted_at: number;
  scheduled_at: number | null;
  running_at: number | null;
  ended_at: number | null;
  /** How long the record is kept after it ends. */
  retention_ms: number;
  output?: unknown;
  partial_output?: unknown;
  error?: ErrorBody;
  cancellation?: Cancellation;
  /** Every attempt so far (the retry engine; TRT-002 §11). */
  attempts: AttemptRecord[];
  /** For the audit log (never the input itself), the trace and the caller's correlation id. */
  params_hash: string;
  trace_id: string;
  correlation_id: string | null;
  /** A keyed call: the key, what was asked, and until when the key is bound. */
  idempotency?: { key: string; fingerprint: string; expires_at: number };
}

const NEXT: Record<ExecutionStatus, readonly ExecutionStatus[]> = {
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
  fields: Partial<Pick<ExecutionRecord, "output" | "partial_output" | "error" | "provider" | "cancellation">> = {},
): ExecutionRecord {
  if (!NEXT[record.status].includes(to)) throw new IllegalTransition(record.status, to);
  const next: ExecutionRecord = { ...record, ...fields, status: to };
  if (to === "scheduled") next.scheduled_at = at;
  if (to === "running") next.running_at = at;
  if (isTerminal(to)) next.ended_at = at;
  return next;
}
