/**
 * TRT-002 request and response shapes, defined once and shared by the Worker, the execution
 * object and the tests (STYLE.md 10).
 */
import type { ErrorBody } from "./errors.ts";
import type { CapabilityDecision } from "./pipeline/capability.ts";
import type { AttemptRecord } from "./pipeline/retry.ts";
import type { CoercionMode, Effect, JsonSchema, LatencyClass } from "../providers/sdk/protocol.ts";

export type ExecutionMode = "sync" | "async";

/** TRT-002 §9 status model. */
export type ExecutionStatus = "queued" | "scheduled" | "running" | "succeeded" | "failed" | "cancelled" | "timed_out";

export const TERMINAL_STATUSES: readonly ExecutionStatus[] = ["succeeded", "failed", "cancelled", "timed_out"];

/** TRT-002 §4, after the envelope check. */
export interface ExecutionRequest {
  tool: string;
  version?: string;
  provider?: string;
  tenant?: string;
  project?: string;
  input: unknown;
  context: Record<string, unknown>;
  limits: { timeout_ms?: number; max_output_bytes?: number };
  /** `dry_run` runs stages 1-4 and reports what would happen (nothing is executed). */
  mode: ExecutionMode | "dry_run";
  stream: boolean;
  idempotency_key?: string;
}

/** TRT-002 §5 `execution` block. */
export interface ExecutionBlock {
  /** The provider's isolation kind: every provider is a Worker, so a V8 isolate. */
  sandbox: "v8-isolate";
  /** The provider Worker that served the call (null before one was chosen). */
  worker: string | null;
  /** Accepted at the edge → the execution object took it. */
  queued_ms: number | null;
  /** Accepted at the edge → the provider was called. */
  started_ms: number | null;
  /** Provider called → terminal state. */
  duration_ms: number | null;
  /** The effective timeout after AIOS §6.1's hierarchy. */
  timeout_ms: number;
  /** Workers exposes neither per-call CPU time nor memory to the caller: always null. */
  resources: { cpu_ms: null; peak_memory_mb: null };
}

/** TRT-002 §8: what a cancel request did. */
export type CancellationOutcome = "before_start" | "cooperative" | "forced" | "already_finished";

export interface Cancellation {
  requested_at: string;
  /** null while the provider's grace period is still running. */
  outcome: CancellationOutcome | null;
}

/** TRT-002 §5 / §9: what GET and a sync POST return. */
export interface ExecutionView {
  execution_id: string;
  tool: string;
  version: string;
  status: ExecutionStatus;
  output?: unknown;
  partial_output?: unknown;
  error?: ErrorBody;
  cancellation?: Cancellation;
  /** AIOS §5.3: what each capability level decided (level 2 may arrive after the call). */
  capability?: CapabilityDecision;
  /** Each attempt: provider, outcome, when it started (ms after acceptance) and how long it took. */
  attempts?: AttemptRecord[];
  execution: ExecutionBlock;
}

/** GET /v1/tools/{name}: one provider's offer of one version. */
export interface ToolOfferingView {
  provider: string;
  trust: Trust;
  /** AIOS §5.2.1 inputs from real executions; null until there are any. */
  p50_ms: number | null;
  error_rate: number | null;
  samples: number;
  /** AIOS §6.4. */
  breaker: "closed" | "open" | "half_open";
  /** false once a call found its Worker missing or failing before the handler ran. */
  alive: boolean;
  disabled: boolean;
  capability_required: string | null;
  idempotent: boolean;
  latency_class: LatencyClass;
  effects: Effect;
  coercion: CoercionMode;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
}

export interface ToolVersionView {
  version: string;
  active: boolean;
  description: string;
  deprecation: { sunset: string; replacement: string | null; deprecated_at: string } | null;
  providers: ToolOfferingView[];
}

export interface ToolView {
  name: string;
  active_version: string;
  description: string;
  versions: ToolVersionView[];
}

/** AIOS §5.2.1: system > verified > community. */
export type Trust = "system" | "verified" | "community";
export const TRUST_ORDER: readonly Trust[] = ["system", "verified", "community"];

/** One row of `GET /v1/executions` (the execution index, fed by the audit pipeline). */
export interface ExecutionSummary {
  execution_id: string;
  tool: string;
  version: string;
  provider: string | null;
  mode: string;
  /** An ExecutionStatus; typed as a string because the index may hold newer ones. */
  status: string;
  error_code: string | null;
  accepted_at: string | null;
  ended_at: string | null;
}

/** One record of `GET /v1/audit` (operators; AIOS §5.7). */
export interface AuditRecord {
  execution_id: string;
  tenant: string;
  agent: string;
  tool: string;
  version: string;
  provider: string | null;
  /** SHA-256 of the input; the input itself is never kept. */
  params_hash: string;
  mode: string;
  status: string;
  error_code: string | null;
  latency_ms: number | null;
  attempts: { attempt: number; provider: string; outcome: string; started_ms: number; duration_ms: number }[];
  capability: unknown;
  correlation_id: string | null;
  trace_id: string | null;
  accepted_at: string | null;
  ended_at: string | null;
}

/** A page of a listing: follow `next_cursor` (null on the last page). */
export interface Page {
  next_cursor: string | null;
}
