/**
 * The API's request and response shapes (docs/contract.md), defined once and shared by the Worker, the execution
 * object, the faces and the tests, so none of them can drift. The bottom of the house: it depends on
 * nothing but the provider wire protocol's types, which depend on nothing either.
 */
import type {
  CoercionMode,
  Effect,
  JsonSchema,
  LatencyClass,
  PartialMerge,
  ToolErrorCode,
  Value,
} from "../providers/sdk/protocol.ts";

export type { Value };

/** Error types (docs/contract.md#errors). */
export type ErrorType = "request_error" | "auth_error" | "registry_error" | "execution_error" | "runtime_error";

/**
 * Every error code a caller can see: the first ten, then the cases they do not cover, named
 * in the same style. src/errors.ts gives each its HTTP status, type and default `retryable`.
 */
export const ERROR_CODES = [
  "unauthenticated",
  "forbidden",
  "tool_not_found",
  "invalid_input",
  "invalid_output",
  "timeout",
  "resource_exceeded",
  "sandbox_unavailable",
  "tool_error",
  "rate_limited",
  "invalid_request",
  "payload_too_large",
  "tool_deprecated",
  "provider_crashed",
  "no_healthy_provider",
  "idempotency_conflict",
  "cancelled",
  "execution_not_found",
  "not_found",
  "not_acceptable",
  "unsupported_media_type",
  "method_not_allowed",
  "overloaded",
  "internal",
  "approval_rejected",
  "approval_expired",
  "approval_not_pending",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The body of every error response: `{ error: ErrorBody }` (docs/contract.md#errors). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  type: ErrorType;
  retryable: boolean;
  details?: Record<string, Value>;
}

/**
 * What crosses every boundary — the execution service to a face, an object to the service,
 * the runtime to a Workers RPC caller: a value, or an error as a value (a thrown Error would
 * lose its code and details over RPC). `execution` is set when the error is an execution's
 * own end (it ran and failed), absent when the call was refused before or instead of one.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorBody; execution?: ExecutionView };

/** Who is calling (docs/contract.md#initiation): set by the runtime from a credential or binding props, never from a body. */
export interface Caller {
  tenant: string;
  agent: string;
  capabilities: string[];
  /** Provider names the caller may reach (docs/contract.md#capabilities level 1); "*" reaches all. */
  channels: string[];
  /** agent (the default; "tenant" is read as agent), tenant_admin, approver or admin: src/auth/roles.ts. */
  role?: string;
}

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

/** The faces a call can come through; recorded in the audit log. */
export type Face = "rest" | "rpc" | "connect" | "mcp";

export type ExecutionMode = "sync" | "async";

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

/** The request (docs/contract.md#request), after the envelope check. */
export interface ExecutionRequest {
  tool: string;
  version?: string;
  provider?: string;
  tenant?: string;
  project?: string;
  input: Value;
  context: Record<string, Value>;
  limits: { timeout_ms?: number; max_output_bytes?: number };
  /** `dry_run` runs stages 1-4 and reports what would happen (nothing is executed). */
  mode: ExecutionMode | "dry_run";
  stream: boolean;
  idempotency_key?: string;
}

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

/** GET /v1/tools/{name}: one provider's offer of one version. */
export interface ToolOfferingView {
  provider: string;
  trust: Trust;
  /** docs/contract.md#ranking inputs from real executions; null until there are any. */
  p50_ms: number | null;
  error_rate: number | null;
  samples: number;
  /** docs/contract.md#circuit-breakers. */
  breaker: "closed" | "open" | "half_open";
  /** false once a call found its Worker missing or failing before the handler ran. */
  alive: boolean;
  disabled: boolean;
  capability_required: string | null;
  idempotent: boolean;
  latency_class: LatencyClass;
  effects: Effect;
  coercion: CoercionMode;
  /** How its `partial` events make the partial output (docs/contract.md#partial-output). */
  partial_merge: PartialMerge;
  /** The tool's own error codes (`details.tool_code` of a `tool_error`; docs/contract.md#errors). */
  error_codes: ToolErrorCode[];
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

/** docs/contract.md#ranking: system > verified > community. */
export type Trust = "system" | "verified" | "community";
export const TRUST_ORDER: readonly Trust[] = ["system", "verified", "community"];

/** One row of `GET /v1/executions` (the execution index, fed by the audit pipeline). */
export interface ExecutionSummary {
  execution_id: string;
  tool: string;
  version: string;
  provider: string | null;
  /** docs/contract.md#request `project`, as the caller named it. */
  project: string | null;
  mode: string;
  /** An ExecutionStatus; typed as a string because the index may hold newer ones. */
  status: string;
  error_code: string | null;
  accepted_at: string | null;
  ended_at: string | null;
}

/**
 * Which execution this is: who called which tool, through which face. Written once here and
 * shared by the plan, the execution record, the audit log's entry and `GET /v1/audit`'s record.
 */
export interface ExecutionIdentity {
  execution_id: string;
  tenant: string;
  agent: string;
  /** The request's `project`, as the caller named it (recorded and filterable, never trusted). */
  project: string | null;
  /** The face the call came through. */
  face: Face;
  tool: string;
  version: string;
}

/** One record of `GET /v1/audit` (operators; docs/contract.md#audit). */
export interface AuditRecord extends ExecutionIdentity {
  provider: string | null;
  /** SHA-256 of the input; the input itself is never kept. */
  params_hash: string;
  mode: string;
  status: string;
  error_code: string | null;
  latency_ms: number | null;
  attempts: AttemptRecord[];
  /** The provider Workers' CPU reports so far, as in the execution's view (docs/contract.md#response). */
  resources: ExecutionResources;
  capability: CapabilityDecision;
  /** The person's decision, for a call that needed approval (null otherwise). */
  approval: ApprovalDecision | null;
  correlation_id: string | null;
  trace_id: string | null;
  accepted_at: string | null;
  ended_at: string | null;
}

/** A page of a listing: follow `next_cursor` (null on the last page). */
export interface Page {
  next_cursor: string | null;
}

/** A schema violation, with a JSON Pointer into the value (docs/contract.md#validation). */
export interface Violation {
  /** JSON Pointer into the input ("" is the whole input). */
  path: string;
  message: string;
  keyword: string;
}

/** A deprecated version: its sunset and replacement (RFC 9745, RFC 8594). */
export interface DeprecationNotice {
  /** ISO 8601; from then on calls fail with tool_deprecated. */
  sunset: string;
  replacement: string | null;
  /** ISO 8601: when the operator deprecated it (the Deprecation header, RFC 9745). */
  deprecated_at: string;
}

/** What `mode: "dry_run"` answers: stages 1-4 run, nothing is executed or created. */
export interface DryRunReport {
  mode: "dry_run";
  tool: string;
  version: string;
  /** The provider that would serve (the first ranked with room, or the one it would wait for), or null when none could. */
  provider: string | null;
  ranking: {
    place: number;
    provider: string;
    trust: string;
    p50_ms: number | null;
    error_rate: number | null;
    breaker: string;
    reason: string;
    /** The provider's max_concurrency (null: no limit), its calls in flight now, and whether it has room. */
    max_concurrency: number | null;
    in_flight: number | null;
    room: boolean;
  }[];
  /** true when every ranked provider is full: the call would wait in `scheduled` for `provider`. */
  waits_for_capacity: boolean;
  /** The tenant's approval rule that would hold the call for a person, or null. */
  approval: { rule: string; window_ms: number } | null;
  excluded: { provider: string; reason: string; retry_at: string | null }[];
  capability: {
    allowed: boolean;
    decision?: CapabilityDecision;
    denial?: { level: unknown; reason: string; required?: unknown };
  };
  schema: { valid: boolean; violations: Violation[] };
  deprecation: DeprecationNotice | null;
}

/** An API key as operators see it (never its secret). */
export interface ApiKeyRecord {
  key_id: string;
  tenant: string;
  agent: string;
  capabilities: string[];
  channels: string[];
  /**
   * What the key may do inside its tenant (src/auth/roles.ts): `agent` (the default; records
   * made before roles say "tenant", read as agent), `tenant_admin`, `approver`; `admin` is an
   * operator's key.
   */
  role: "agent" | "tenant_admin" | "approver" | "admin" | "tenant";
  created_at: string;
  revoked_at?: string;
}
