/**
 * Stage 5 (AIOS §5.5): dispatch. Names the execution, builds the plan the execution object
 * runs (ranked providers, validated input, the effective timeout and the time already spent)
 * and hands it over. The execution id encodes the object's id, which is unguessable
 * (DESIGN.md 7).
 */
import type { ExecutionMode, ExecutionView } from "../contract.ts";
import type { Env } from "../env.ts";
import { RuntimeError } from "../errors.ts";
import type { Effect } from "../../providers/sdk/protocol.ts";
import type { CapabilityDecision } from "./capability.ts";
import type { IdempotencyClaim } from "./idempotency.ts";
import type { TraceContext } from "../audit/trace.ts";
import type { IntentRequest } from "../../verifiers/intent/src/protocol.ts";
import type { RetryPolicy } from "./retry.ts";
import type { TenantLimits } from "../policy/limits.ts";

export interface PlannedProvider {
  provider: string;
  binding: string;
  /** This call is the breaker's half-open trial (AIOS §6.4): its outcome is reported at once. */
  trial: boolean;
}

/** Everything the execution object needs; nothing it has to look up again. */
export interface ExecutionPlan {
  execution_id: string;
  tenant: string;
  agent: string;
  tool: string;
  version: string;
  mode: ExecutionMode;
  /** Ranked, best first (AIOS §5.2.1). */
  providers: PlannedProvider[];
  input: unknown;
  context: Record<string, unknown>;
  timeout_ms: number;
  /** When the edge accepted the call; the budget counts from here (AIOS §6.1). */
  accepted_at: number;
  output_hash: string;
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
  /** AIOS §5.3 level 2 for a read-only tool: asked by the object, recorded with the end. */
  intent_request?: IntentRequest;
  /** A keyed call: the object admits it itself (once) and dedupes by fingerprint. */
  idempotency?: IdempotencyClaim;
  limits?: TenantLimits;
  /** Attempt policy; tools that are not idempotent get one attempt whatever this says. */
  retry: RetryPolicy;
  /** The longest one attempt may take when retries are possible (the tool's latency class). */
  attempt_cap_ms: number;
}

/** What `execute` answers: a new or an existing execution, or a key reused for another request. */
export type ExecutionResult =
  | { kind: "started" | "replayed"; view: ExecutionView; stored?: { status: number; body: string } }
  | { kind: "conflict"; execution_id: string }
  | { kind: "refused"; message: string; details: Record<string, unknown> };

const PREFIX = "exec_";

export function newExecutionId(env: Env): string {
  return PREFIX + env.EXECUTIONS.newUniqueId().toString();
}

/** The execution object's RPC surface, typed by hand (tool outputs are `unknown` to Rpc's inference). */
export interface ExecutionRpc {
  execute(plan: ExecutionPlan): Promise<ExecutionResult>;
  executeStream(plan: ExecutionPlan): Promise<ExecutionResult & { stream?: ReadableStream<Uint8Array> }>;
  view(tenant: string): Promise<ExecutionView | undefined>;
  subscribe(tenant: string, after: number): Promise<Subscription>;
  cancel(tenant: string, graceMs: number): Promise<ExecutionView | undefined>;
}

/** The answer to a stream request: a stream, nothing to send (resumed past the end), or no such execution. */
export type Subscription =
  | { kind: "stream"; stream: ReadableStream<Uint8Array> }
  | { kind: "ended" }
  /** The execution already serves as many subscribers as it will. */
  | { kind: "busy" }
  | { kind: "not_found" };

/** The execution object behind an id, or undefined when the id cannot be one of ours. */
export function executionStub(env: Env, executionId: string): ExecutionRpc | undefined {
  if (!executionId.startsWith(PREFIX) || !/^[0-9a-f]{64}$/.test(executionId.slice(PREFIX.length))) return undefined;
  try {
    return env.EXECUTIONS.get(env.EXECUTIONS.idFromString(executionId.slice(PREFIX.length))) as unknown as ExecutionRpc;
  } catch {
    return undefined; // well-formed hex that this namespace did not mint
  }
}

export async function dispatch(env: Env, plan: ExecutionPlan): Promise<ExecutionResult> {
  return executionStub(env, plan.execution_id)!.execute(plan);
}

/** An execution that started or was attached to; a reused key or a refusal becomes its error. */
export function expectExecution<T extends ExecutionResult>(result: T): Extract<T, { kind: "started" | "replayed" }> {
  if (result.kind === "conflict") {
    throw new RuntimeError("idempotency_conflict", "this idempotency key was used with a different request", { execution_id: result.execution_id });
  }
  if (result.kind === "refused") throw new RuntimeError("rate_limited", result.message, result.details);
  return result as Extract<T, { kind: "started" | "replayed" }>;
}
