/**
 * The execution object's RPC face (durable-objects/execution-object.ts): the methods other code
 * calls on it, and what they take and give — the edge's side of a start, a keyed call and a
 * subscription. Callers type their stubs by `ExecutionObjectRpc`, not by the class.
 */
import type { ApprovalDecision, Caller, ExecutionRequest, ExecutionView, Face, Outcome } from "../contract.ts";
import type { DeprecationNotice } from "../registry/catalog.ts";
import type { TraceContext } from "../audit/trace.ts";
import type { ExecutionScope } from "../auth/roles.ts";
import type { ExecutionPlan } from "./execution-plan.ts";

/** What a start asks for: wait for the end (sync), answer when accepted (async), or subscribe too (stream). */
export type Delivery = "end" | "accepted" | "stream";

export interface StartAnswer {
  view: ExecutionView;
  /** A keyed duplicate: the original execution (docs/contract.md#idempotency). */
  replayed: boolean;
  /** The event stream (NDJSON lines), when the delivery was "stream". */
  stream?: ReadableStream<Uint8Array>;
  deprecation?: DeprecationNotice;
}

/** A keyed call as the edge hands it over: stage 1 done, the rest runs here, once per key. */
export interface KeyedCall {
  caller: Caller;
  request: ExecutionRequest;
  fingerprint: string;
  accepted_at: number;
  trace: TraceContext;
  face: Face;
  /** Its rate token was taken at the edge (every keyed request takes one, duplicates too). */
  paid?: boolean;
}

export type EventsAnswer = { kind: "stream"; stream: ReadableStream<Uint8Array> } | { kind: "ended" };

/** An execution's event streams: subscribers, event bytes waiting for them now and at most so far. */
export interface StreamsAnswer {
  subscribers: number;
  queued_bytes: number;
  peak_queued_bytes: number;
}

/** What other code calls on an execution's object (its alarm is the platform's, not a caller's). */
export interface ExecutionObjectRpc extends Rpc.DurableObjectBranded {
  /** Starts a planned execution (unkeyed: planned at the edge); a second start attaches to the first. */
  start(plan: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>>;
  /** A keyed call at the key's first object (docs/contract.md#idempotency). */
  startKeyed(call: KeyedCall, delivery: Delivery): Promise<Outcome<StartAnswer>>;
  /** A keyed call forwarded by the key's first object to the execution the key moved on to. */
  attach(tenant: string, delivery: Delivery, replayed?: boolean): Promise<Outcome<StartAnswer>>;
  /** The view for GET; null outside the caller's scope or without a record. */
  view(scope: ExecutionScope): Promise<ExecutionView | null>;
  /** The events after `after`, then live ones until the terminal event (docs/contract.md#streaming). */
  events(scope: ExecutionScope, after: number): Promise<Outcome<EventsAnswer>>;
  /** For tests and operators. */
  streams(): Promise<StreamsAnswer>;
  /** docs/contract.md#cancellation; null outside the caller's scope. */
  cancel(scope: ExecutionScope, graceMs: number): Promise<ExecutionView | null>;
  /** A person decides (docs/contract.md#approvals); null for another tenant's id. */
  decide(tenant: string, decision: ApprovalDecision, selfApproval?: boolean): Promise<Outcome<ExecutionView> | null>;
  /** The tenant's object grants a queued execution a slot (false: it gives the slot back). */
  granted(): Promise<boolean>;
  /** The provider's gate grants a scheduled execution a permit (false: it gives the permit back). */
  capacityGranted(provider: string, permitId: string): Promise<boolean>;
}
