/** An execution as GET and a sync POST show it (docs/contract.md#response): its statuses, attempts, events and blocks. */
import type { Value } from "../../providers/sdk/protocol.ts";
import type { ApprovalState } from "./approvals.ts";
import type { ErrorBody } from "./errors.ts";

/** Level 2's outcome (docs/contract.md#capabilities): `pending` until an asynchronous verdict arrives. */
export interface IntentDecision {
  verdict: "skipped" | "aligned" | "misaligned" | "pending";
  mode: "sync" | "async" | "none";
  reason: string;
  profile?: string;
  /** The verdict came from the per-isolate verdict cache (read-only tools). */
  cached?: boolean;
}

/** What each capability level decided (docs/contract.md#capabilities). */
export interface CapabilityDecision {
  level1: { reachable: string[] };
  level2: IntentDecision;
  level3: { required: string | null; granted_by: string | null };
}

/** One attempt, as the result and the stream show it (docs/contract.md#retries). */
export interface AttemptRecord {
  attempt: number;
  provider: string;
  /** "succeeded", or the error code the attempt ended with. */
  outcome: string;
  /** From acceptance to the attempt's start, and the attempt's own length, as the runtime saw it. */
  started_ms: number;
  duration_ms: number;
  /**
   * The provider's own latency for this attempt (docs/contract.md#delivery, `latency_us`, in
   * ms): its handler's time as the provider measured it, beside the runtime's `duration_ms`
   * (which adds dispatch and the way back). null when the provider gave no answer (a timeout,
   * a failed provider Worker, an abandoned call, a provider that is not bound). Reported by
   * the provider: a figure to compare, not to bill on.
   */
  provider_latency_ms: number | null;
  /**
   * CPU time of the provider Worker's invocation for this attempt, as the platform measured it
   * (its Tail Worker event's `cpuTime`), written into the record after the fact (docs/contract.md#response
   * `resources`). null until that report arrives, and when it carries no measurement (under
   * `wrangler dev` the local runtime reports none); see ExecutionBlock `resources.cpu_report`.
   */
  cpu_ms: number | null;
}

/** One event of an execution's stream (docs/contract.md#streaming); `seq` orders them and resumes a stream. */
export interface ExecutionEvent {
  seq: number;
  type: string;
  data: Value;
  /** Epoch ms when the runtime took the event. */
  at: number;
}

/**
 * The status model (docs/contract.md#statuses), with a person's approval before it (docs/contract.md#approvals):
 *   (awaiting_approval →) queued → scheduled → running → succeeded | failed | cancelled | timed_out
 * `queued`: waiting for one of its tenant's slots; `scheduled`: it has a slot and waits for room
 * at its provider (max_concurrency); `awaiting_approval`: waiting for a person's decision.
 */
export const EXECUTION_STATUSES = [
  "awaiting_approval",
  "queued",
  "scheduled",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "timed_out",
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** Statuses of an execution that waits: nothing has been sent to a provider yet. */
export const WAITING_STATUSES: readonly ExecutionStatus[] = ["awaiting_approval", "queued", "scheduled"];

export const TERMINAL_STATUSES: readonly ExecutionStatus[] = ["succeeded", "failed", "cancelled", "timed_out"];

/** The `execution` block (docs/contract.md#response). */
export interface ExecutionBlock {
  /** The provider's isolation kind: every provider is a Worker, so a V8 isolate. */
  sandbox: "v8-isolate";
  /** The provider Worker that served the call (null before one was chosen). */
  worker: string | null;
  /** Accepted → scheduled: how long it waited (for a person's approval, then for a slot of its tenant). */
  queued_ms: number | null;
  /** Accepted at the edge → the provider was called. */
  started_ms: number | null;
  /** Provider called → terminal state. */
  duration_ms: number | null;
  /** The effective timeout after the hierarchy of docs/contract.md#timeouts. */
  timeout_ms: number;
  /** docs/contract.md#response; see ExecutionResources. */
  resources: ExecutionResources;
}

/**
 * What the provider Workers' invocations cost, reported by the platform after each one ends
 * (a Tail Worker event per invocation, docs/architecture.md "CPU time"):
 *   cpu_report  "none"        no report has reached the record (yet: it follows the answer, usually
 *                             within seconds when deployed; never, when the provider Worker has no tail
 *                             consumer or the platform dropped the event: delivery is best effort)
 *               "measured"    cpu_ms sums the attempts whose reports arrived (attempts[].cpu_ms)
 *               "unmeasured"  reports arrived without a measurement (`wrangler dev`: the local
 *                             runtime reports 0 ms of CPU and wall time for every invocation)
 * Memory is never reported per invocation (only a Worker that exceeds its limit is told so):
 * `peak_memory_mb` is always null.
 */
export interface ExecutionResources {
  cpu_ms: number | null;
  peak_memory_mb: null;
  cpu_report: CpuReport;
}

export type CpuReport = "none" | "measured" | "unmeasured";

/** What a cancel request did (docs/contract.md#cancellation). */
export type CancellationOutcome = "before_start" | "cooperative" | "forced" | "already_finished";

export interface Cancellation {
  requested_at: string;
  /** null while the provider's grace period is still running. */
  outcome: CancellationOutcome | null;
}

/** docs/contract.md#response, docs/contract.md#statuses: what GET and a sync POST return. */
export interface ExecutionView {
  execution_id: string;
  tool: string;
  version: string;
  status: ExecutionStatus;
  output?: Value;
  partial_output?: Value;
  error?: ErrorBody;
  cancellation?: Cancellation;
  /** docs/contract.md#capabilities: what each capability level decided (level 2 may arrive after the call). */
  capability?: CapabilityDecision;
  /** Each attempt: provider, outcome, when it started (ms after acceptance) and how long it took. */
  attempts?: AttemptRecord[];
  /**
   * While `queued`: its place in its tenant's queue; while `scheduled`: its place in the queue of
   * the provider it waits for (1 is next). Absent otherwise.
   */
  position?: number;
  /** A call that needed a person's approval: when the window ends, and the decision once made. */
  approval?: ApprovalState;
  execution: ExecutionBlock;
}
