/**
 * Stage 5 (docs/contract.md#dispatch): what is dispatched. The plan carries everything stages 6 and 7 need
 * (ranked providers, validated input, the effective timeout, the time already spent), so the
 * run never looks anything up again, wherever it runs.
 */
import type { CapabilityDecision, ExecutionIdentity, ExecutionMode, Value } from "../contract.ts";
import type { Effect, JsonSchema, PartialMerge } from "../../providers/sdk/protocol.ts";
import type { TraceContext } from "../audit/trace.ts";
import type { TenantLimits } from "../policy/limits.ts";
import type { RetryPolicy } from "./retry.ts";
import type { UpstreamTarget } from "../upstreams/target.ts";

/** A keyed call's claim (docs/contract.md#idempotency): the key, what was asked, and how long the key binds. */
export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
  ttl_ms: number;
}

export interface PlannedProvider {
  provider: string;
  binding: string;
  /** This call is the breaker's half-open trial (docs/contract.md#circuit-breakers): its outcome is reported at once. */
  trial: boolean;
  /** An upstream MCP server's tool: called through the adapter, not a binding (src/upstreams/). */
  upstream?: UpstreamTarget;
  /** The provider's max_concurrency (docs/contract.md#waiting): a call there holds one of its gate's permits. Absent: no limit. */
  max_concurrency?: number;
}

/** Everything the execution object needs; nothing it has to look up again. */
export interface ExecutionPlan extends ExecutionIdentity {
  mode: ExecutionMode;
  /** Ranked, best first (docs/contract.md#ranking). */
  providers: PlannedProvider[];
  input: Value;
  context: Record<string, Value>;
  timeout_ms: number;
  /** When the edge accepted the call; the budget counts from here (docs/contract.md#budgets). */
  accepted_at: number;
  output_hash: string;
  /** The output schema itself, only when it is known at run time only (an upstream's tool). */
  output_schema?: JsonSchema;
  max_output_bytes: number;
  idempotent: boolean;
  effects: Effect;
  capability: CapabilityDecision;
  /** How long the finished execution stays readable. */
  retention_ms: number;
  /** SHA-256 of the canonical input: the audit log records this, never the input. */
  params_hash: string;
  trace: TraceContext;
  correlation_id: string | null;
  /** A keyed call: its object dedupes by fingerprint. */
  idempotency?: IdempotencyClaim;
  /** The tenant's limits, for admission where the execution runs. */
  limits: TenantLimits;
  /** Attempt policy; tools that are not idempotent get one attempt whatever this says. */
  retry: RetryPolicy;
  /**
   * The longest one attempt may take when retries are possible: the tool's latency class, or
   * all of the caller's `limits.timeout_ms` when the caller set one (docs/contract.md#timeouts: the caller's
   * timeout comes first; retries happen only within what is left).
   */
  attempt_cap_ms: number;
  /**
   * The tool's latency-class timeout. An attempt that timed out counts against the provider
   * only if it had at least this long to run (docs/contract.md#timeouts): a budget the caller chose shorter
   * is the caller's choice, not the provider's fault.
   */
  class_timeout_ms: number;
  /** How the tool's `partial` events make its partial output (docs/contract.md#partial-output). */
  partial_merge: PartialMerge;
  /**
   * The tenant's rule holds this call for a person's approval before it may run (docs/contract.md#approvals):
   * which rule matched, and how long the person has.
   */
  approval?: { rule: string; window_ms: number };
  /** Its rate token was taken at the edge before level 2: its object admits it without one. */
  paid?: boolean;
}
