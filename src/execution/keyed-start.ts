/**
 * The rules of a keyed call (docs/contract.md#idempotency), pure: what the key's first object does
 * with a call, from what the key is bound to, the call's fingerprint and now. The execution object
 * (durable-objects/execution-object.ts) applies them.
 *
 *   bound, within its TTL or its execution not ended yet → the same request: replay it; another: conflict
 *   not bound                                            → a new execution, in this object
 *   bound, past its TTL and its execution ended          → a new execution under a new id
 *
 * One use of a key is started at a time: a duplicate waits for the use in progress, then looks again.
 */
import type { DeprecationNotice } from "../registry/catalog.ts";
import type { StartAnswer } from "./object-rpc.ts";
import { isTerminal, type ExecutionRecord } from "./record.ts";
import type { Outcome } from "../contract.ts";

/** A key's binding to an execution: the request's fingerprint, and when the key's TTL ends. */
export interface KeyBinding {
  execution_id: string;
  fingerprint: string;
  expires_at: number;
}

/** What the key's object holds of its own execution, if any. */
export type OwnExecution = Pick<ExecutionRecord, "execution_id" | "status" | "idempotency">;

export type KeyedStep =
  /** Another request under a key that still holds. */
  | { kind: "conflict"; execution_id: string }
  /** The same request: the original execution answers, this object's own (`here`) or the one the key moved to. */
  | { kind: "replay"; execution_id: string; here: boolean }
  /** A new use: in this object while it has no execution (`here`), else in a new one under a new id. */
  | { kind: "new"; here: boolean };

/** The key's binding now: the execution it moved on to (stored), else this object's own execution's. */
export function currentBinding(moved: KeyBinding | undefined, own: OwnExecution | undefined): KeyBinding | undefined {
  if (moved) return moved;
  return own?.idempotency
    ? {
        execution_id: own.execution_id,
        fingerprint: own.idempotency.fingerprint,
        expires_at: own.idempotency.expires_at,
      }
    : undefined;
}

/** A binding holds within its TTL, and past it while its execution (this object's own) has not ended. */
export function bindingHolds(binding: KeyBinding, own: OwnExecution | undefined, now: number): boolean {
  if (now < binding.expires_at) return true;
  // Only this object's own execution is known here; one elsewhere had its TTL counted from its start.
  return binding.execution_id === own?.execution_id && !isTerminal(own.status);
}

/** What to do with a keyed call whose fingerprint is `fingerprint`, at `now`. */
export function keyedStep(
  binding: KeyBinding | undefined,
  fingerprint: string,
  own: OwnExecution | undefined,
  now: number,
): KeyedStep {
  if (binding && bindingHolds(binding, own, now)) {
    if (binding.fingerprint !== fingerprint) return { kind: "conflict", execution_id: binding.execution_id };
    return { kind: "replay", execution_id: binding.execution_id, here: binding.execution_id === own?.execution_id };
  }
  return { kind: "new", here: own === undefined };
}

/** The binding of a key that moved on to a new execution: its TTL counts from `now`, when the call came. */
export function movedBinding(executionId: string, fingerprint: string, ttlMs: number, now: number): KeyBinding {
  return { execution_id: executionId, fingerprint, expires_at: now + ttlMs };
}

/**
 * The use of a key being started (planned and admitted), if any. A duplicate loops
 * `while (uses.inProgress) await uses.inProgress` and decides with no await between the loop's
 * end and its own `begin()`, so two duplicates woken together never both start a use.
 */
export class KeyUses {
  #inProgress: Promise<void> | undefined;

  get inProgress(): Promise<void> | undefined {
    return this.#inProgress;
  }

  /** A use starts; the function returned says it has started (or was refused), waking the duplicates. */
  begin(): () => void {
    let started!: () => void;
    this.#inProgress = new Promise<void>((resolve) => (started = resolve));
    return () => {
      this.#inProgress = undefined;
      started();
    };
  }
}

/** A new use's answer carries the deprecation notice its planning found (replays do not plan). */
export function withDeprecation(
  outcome: Outcome<StartAnswer>,
  deprecation: DeprecationNotice | undefined,
): Outcome<StartAnswer> {
  return outcome.ok && deprecation ? { ok: true, value: { ...outcome.value, deprecation } } : outcome;
}
