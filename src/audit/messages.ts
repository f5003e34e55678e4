/**
 * What execution objects and edges send to the audit queue (AIOS §5.7 steps 4-5, §6.3). One
 * pipeline feeds the audit log, the execution index and the metrics, so they cannot disagree.
 */
import type { ExecutionMode, ExecutionStatus } from "../contract.ts";
import type { CapabilityDecision } from "../pipeline/capability.ts";
import type { AttemptRecord } from "../pipeline/retry.ts";

/** One row of the execution index (`GET /v1/executions`). */
export interface IndexEntry {
  execution_id: string;
  tenant: string;
  tool: string;
  version: string;
  provider: string | null;
  mode: ExecutionMode;
  status: ExecutionStatus;
  error_code: string | null;
  accepted_at: number;
  ended_at: number | null;
}

/** One audit record per execution, at its end. Parameters appear only as a hash. */
export interface AuditRecord extends IndexEntry {
  agent: string;
  params_hash: string;
  latency_ms: number;
  attempts: AttemptRecord[];
  capability: CapabilityDecision;
  correlation_id: string | null;
  trace_id: string | null;
}

export type AuditMessage =
  | { kind: "started"; entry: IndexEntry }
  | { kind: "finished"; record: AuditRecord }
  /** Refusals at the edge (no execution exists), counted per isolate and sent in batches. */
  | { kind: "refusals"; id: string; counts: { tenant: string; tool: string; reason: string; n: number }[] };
