/**
 * An execution object's lifecycle as data (src/execution/lifecycle.ts steps it): what the object
 * holds in memory, the events that move it, and the effects it asks its shell
 * (durable-objects/execution-object.ts) to carry out. No I/O here: a request to another object
 * is an effect, and its answer comes back as an event.
 *
 *   (awaiting_approval: a person decides →) queued: the tenant's object grants a slot
 *   → scheduled: the provider's gate grants a permit → running → the end → audit confirmed → deleted
 */
import type { ApprovalDecision, ErrorBody, ExecutionEvent, Value } from "../contract.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import type { Claim, Permit } from "./provider-claim.ts";
import type { ExecutionRecord } from "./record.ts";

/** Who waits for a chain of requests to settle: the start call (`start`) or a person's decision (`decide`). */
export type Asker = "start" | "decide";

/** How a chain of requests settled for its asker; `thrown`: a request failed, and the start call throws it as before. */
export type Settled = { ok: true } | { ok: false; error: ErrorBody; thrown?: unknown };

export interface Lifecycle {
  /** The record as stored (none: nothing started here, or its retention ended). */
  record?: ExecutionRecord;
  /** The plan while the execution waits (stored as well): what it runs once it may. */
  plan?: ExecutionPlan;
  /** A request to the tenant's object is under way: to hold the call for a person, or to admit it. */
  asking?: { what: "approval" | "admission"; for: Asker; plan: ExecutionPlan; at: number; expires?: number };
  /** Room at a provider is being taken; a permit the gate granted meanwhile waits in `late`. */
  claiming?: { plan: ExecutionPlan; for?: Asker; late?: Permit };
  /** Its run has begun and not ended; the budget's end (the alarm backs the run's own timer up). */
  run?: { deadline: number };
  /** Ended: whether the audit queue confirmed the finished record, and when it is sent again if not. */
  audit?: { confirmed: boolean; resendAt?: number };
}

/** What a request to the tenant's object answered (`thrown`: the request itself failed). */
export type Asked = { ok: true; queued?: number } | { ok: false; error: ErrorBody; thrown?: unknown };

export type LifecycleEvent =
  /** A new instance read its storage (the record, the plan, and for a lost run what its events make). */
  | { type: "restarted"; record?: ExecutionRecord; plan?: ExecutionPlan; lost?: { lastSeq: number; partial: Value } }
  /** A planned execution starts here (unkeyed, or a keyed call's new use). */
  | { type: "start"; plan: ExecutionPlan }
  | { type: "approval asked"; answer: Asked }
  | { type: "admitted"; answer: Asked }
  /** The tenant's object granted a slot. */
  | { type: "slot granted" }
  /** The provider's gate granted a permit. */
  | { type: "permit granted"; permit: Permit }
  /** Taking room at a provider ended: a claim, or why it could not be taken. */
  | { type: "claim answered"; claim: Claim }
  | { type: "claim answered"; error: ErrorBody }
  | { type: "decided"; decision: ApprovalDecision; selfApproval: boolean }
  | { type: "cancel"; graceMs: number }
  /** The run saved its record (running, or ended). */
  | { type: "run saved"; record: ExecutionRecord }
  | { type: "run ended"; record: ExecutionRecord }
  | { type: "alarm" }
  /** Someone follows the wait and its place in line changed (src/execution/position-watch.ts): said in a `log` event. */
  | { type: "told position"; data: Record<string, Value> }
  /** The audit queue answered a send of the finished record. */
  | { type: "audit answered"; sent: boolean; byAlarm: boolean };

export type Effect =
  | { kind: "save"; record: ExecutionRecord }
  | { kind: "save plan"; plan: ExecutionPlan }
  | { kind: "drop plan" }
  /** An event for subscribers; `store`: a `log` event of the wait, kept with the record's. */
  | { kind: "emit"; event: ExecutionEvent; store: boolean }
  /** Callers waiting for the end get the terminal record. */
  | { kind: "resolve enders"; record: ExecutionRecord }
  | { kind: "set alarm"; at: number }
  | { kind: "ask approval"; plan: ExecutionPlan; expires: number }
  | { kind: "admit"; plan: ExecutionPlan; wait: boolean; paid: boolean | undefined }
  /** Gives the tenant's slot (or place in its queue) back. */
  | { kind: "release slot"; tenant: string; execution_id: string }
  /** Takes room at a provider (with a permit the gate granted, if any). */
  | { kind: "claim"; plan: ExecutionPlan; permit?: Permit }
  | { kind: "release permit"; permit: Permit }
  | { kind: "abandon trial"; plan: ExecutionPlan }
  /** The call leaves its tenant's pending approvals. */
  | { kind: "approval done"; tenant: string; execution_id: string }
  /** A wait that ended lets go of whatever it waited in (src/execution/wait-exit.ts). */
  | { kind: "let go"; was: ExecutionRecord; plan?: ExecutionPlan }
  /** Its place in line (src/execution/position-watch.ts): put in one at `position`, or out of it. */
  | { kind: "placed"; position?: number }
  | { kind: "left line" }
  | { kind: "start run"; plan: ExecutionPlan; record?: ExecutionRecord; permit: Permit | null; now: number }
  | { kind: "cancel run"; graceMs: number }
  | { kind: "expire run" }
  | { kind: "send audit"; record: ExecutionRecord; byAlarm: boolean }
  /** Retention is over: everything stored goes. */
  | { kind: "delete" }
  /** Every call waiting for `for`'s chain of requests gets how it settled. */
  | { kind: "settle"; for: Asker; settled: Settled }
  /** The call that brought the event is refused, and nothing changed (a decision on a call not pending). */
  | { kind: "refuse"; error: ErrorBody }
  /** The answer to the call that brought the event (`granted`, `capacityGranted`). */
  | { kind: "reply"; value: boolean };

export interface Step {
  state: Lifecycle;
  effects: Effect[];
}
