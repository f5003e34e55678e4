/**
 * A keyed call at the key's first execution object (docs/contract.md#idempotency), applying the
 * rules of src/execution/keyed-start.ts. A duplicate within the key's TTL gets the original before
 * any other stage runs; a new use runs stages 2-5 here and starts the execution — in this object
 * the first time, in a new one (a new id) once an earlier use's TTL has passed.
 */
import type { Outcome } from "../src/contract.ts";
import type { ExecutionPlan } from "../src/execution/execution-plan.ts";
import { newObjectExecutionId, objectStub } from "../src/execution/ids.ts";
import {
  currentBinding,
  keyedStep,
  movedBinding,
  withDeprecation,
  type KeyUses,
} from "../src/execution/keyed-start.ts";
import { internal, refusal } from "../src/execution/object-answers.ts";
import type { Delivery, KeyedCall, StartAnswer } from "../src/execution/object-rpc.ts";
import type { ExecutionRecord } from "../src/execution/record.ts";
import { planExecution } from "../src/pipeline/plan.ts";
import type { DeprecationNotice } from "../src/registry/catalog.ts";
import type { ExecutionStore } from "./execution-store.ts";

/** What the key's object lends a keyed call. */
export interface KeyedHost {
  env: Env;
  objectId: string;
  store: ExecutionStore;
  /** The use of the key being started, if any. */
  uses: KeyUses;
  /** This object's own execution, if any. */
  own(): ExecutionRecord | undefined;
  begin(plan: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>>;
  attach(owned: boolean, delivery: Delivery, replayed: boolean): Promise<Outcome<StartAnswer>>;
}

export async function startKeyed(h: KeyedHost, call: KeyedCall, delivery: Delivery): Promise<Outcome<StartAnswer>> {
  // No await between the end of this loop and begin(): two duplicates woken together never both start.
  while (h.uses.inProgress) await h.uses.inProgress;
  const now = Date.now();
  const own = h.own();
  const step = keyedStep(currentBinding(h.store.key(), own), call.fingerprint, own, now);
  if (step.kind === "conflict")
    return refusal("idempotency_conflict", "this idempotency key was used with a different request", {
      execution_id: step.execution_id,
    });
  if (step.kind === "replay")
    return step.here
      ? h.attach(own!.tenant === call.caller.tenant, delivery, true)
      : objectStub(h.env, step.execution_id).attach(call.caller.tenant, delivery);
  const executionId = step.here ? `exec_${h.objectId}` : newObjectExecutionId(h.env);
  // Duplicates wait until this use of the key has started (or was refused), then attach.
  const started = h.uses.begin();
  let begun: Outcome<StartAnswer>;
  let deprecation: DeprecationNotice | undefined;
  try {
    const planned = await planExecution(h.env, call.caller, call.request, {
      acceptedAt: call.accepted_at,
      trace: call.trace,
      face: call.face,
      executionId,
      fingerprint: call.fingerprint,
      paid: call.paid,
    });
    deprecation = planned.deprecation;
    if (step.here) {
      begun = await h.begin(planned.plan, "accepted");
    } else {
      // Past its TTL the key moves on to a new execution under a new id (docs/contract.md#idempotency); the
      // old one stays readable here under its own id until its retention ends.
      begun = await objectStub(h.env, executionId).start(planned.plan, "accepted");
      if (begun.ok) h.store.saveKey(movedBinding(executionId, call.fingerprint, planned.plan.idempotency!.ttl_ms, now));
    }
  } catch (err) {
    return internal(err);
  } finally {
    started();
  }
  if (!begun.ok) return begun;
  const attached = step.here
    ? await h.attach(true, delivery, false)
    : await objectStub(h.env, executionId).attach(call.caller.tenant, delivery, false);
  return withDeprecation(attached, deprecation);
}
