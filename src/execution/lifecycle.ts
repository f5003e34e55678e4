/**
 * An execution object's lifecycle (docs/contract.md#waiting), pure: `step(state, event, now)`
 * gives the next state and the effects the object (durable-objects/execution-object.ts) carries
 * out, in order. Requests to other objects are effects, their answers events, so every race the
 * object meets — a permit granted while a claim is under way, a cancel while a request is out, a
 * restart mid-wait, an alarm early or late — is a sequence of events this function decides alone.
 * The types: src/execution/lifecycle-types.ts; the alarm: src/execution/lifecycle-alarm.ts.
 */
import { approvalRequested, approvedNote, awaitingApproval, decided, decisionRefused } from "./approval-wait.ts";
import type { Lifecycle, LifecycleEvent, Step } from "./lifecycle-types.ts";
import { AUDIT_CONFIRM_MS } from "./lifecycle-alarm.ts";
import {
  alarm,
  ended,
  endWaiting,
  log,
  proceed,
  refusedAfterSlot,
  retain,
  save,
  settle,
  startRun,
  wait,
} from "./lifecycle-moves.ts";
import { lostPlan } from "./object-answers.ts";
import { isTerminal, isWaiting, transition } from "./record.ts";
import { lostRecord, newRecord } from "./run-records.ts";
import {
  approvalExpiry,
  cancelledBeforeStart,
  endedBeforeStart,
  mayWait,
  waitEndsAt,
  waitExpiredError,
} from "./waiting.ts";

export function step(state: Lifecycle, event: LifecycleEvent, now: number): Step {
  const b: Step = { state: { ...state }, effects: [] };
  const s = b.state;
  const r = s.record;
  switch (event.type) {
    case "restarted":
      return restarted(event, now);
    case "start": {
      // A start under way already: this caller waits for it too (the shell then attaches).
      if (s.asking?.for === "start" || s.claiming?.for === "start") return b;
      const plan = event.plan;
      if (plan.approval) {
        const expires = approvalExpiry(plan, plan.approval.window_ms, now);
        s.asking = { what: "approval", for: "start", plan, at: now, expires };
        b.effects.push({ kind: "ask approval", plan, expires });
      } else {
        // Admission (rate and concurrency) before anything is written: a refused call leaves nothing.
        s.asking = { what: "admission", for: "start", plan, at: now };
        b.effects.push({ kind: "admit", plan, wait: mayWait(plan, now), paid: plan.paid });
      }
      return b;
    }
    case "approval asked": {
      const a = s.asking;
      if (a?.what !== "approval") return b;
      s.asking = undefined;
      if (!event.answer.ok) return (settle(b, a.for, event.answer), b);
      s.plan = a.plan;
      b.effects.push({ kind: "save plan", plan: a.plan });
      save(b, awaitingApproval(a.plan, a.at, a.expires!));
      log(b, approvalRequested(a.plan, a.expires!), now);
      alarm(b);
      return (settle(b, a.for, { ok: true }), b);
    }
    case "admitted": {
      const a = s.asking;
      if (a?.what !== "admission") return b;
      s.asking = undefined;
      const answer = event.answer;
      if (!r) {
        // The start's own admission: nothing is stored yet.
        if (!answer.ok) settle(b, a.for, answer);
        else if (answer.queued !== undefined) {
          wait(b, a.plan, newRecord(a.plan, now), now, answer.queued);
          settle(b, a.for, { ok: true });
        } else proceed(b, a.plan, undefined, a.for, now);
        return b;
      }
      // After approval (its tokens were taken when it was accepted); cancelled or granted meanwhile: nothing to do.
      if (r.status !== "queued") return (settle(b, a.for, { ok: true }), b);
      if (!answer.ok) endWaiting(b, endedBeforeStart(r, answer.error, now), now);
      else if (answer.queued !== undefined) wait(b, a.plan, r, now, answer.queued);
      else {
        save(b, transition(r, "scheduled", now));
        return (proceed(b, a.plan, undefined, a.for, now), b);
      }
      return (settle(b, a.for, { ok: true }), b);
    }
    case "slot granted":
      if (!r || r.status !== "queued" || !s.plan) {
        b.effects.push({ kind: "reply", value: r?.status === "scheduled" || r?.status === "running" });
        return b;
      }
      if (!s.claiming) {
        // Stored before the grant is confirmed: a restart after this goes on from `scheduled`.
        save(b, transition(r, "scheduled", now));
        proceed(b, s.plan, undefined, undefined, now);
      }
      b.effects.push({ kind: "reply", value: true });
      return b;
    case "permit granted":
      if (!r || r.status !== "scheduled" || !s.plan || s.run) {
        b.effects.push({ kind: "reply", value: false });
        return b;
      }
      // A permit granted while a claim is under way is used if that claim finds no room.
      if (s.claiming) s.claiming = { ...s.claiming, late: event.permit };
      else proceed(b, s.plan, event.permit, undefined, now);
      b.effects.push({ kind: "reply", value: true });
      return b;
    case "claim answered":
      return claimAnswered(b, event, now);
    case "decided": {
      const refused = decisionRefused(r!, event.decision, event.selfApproval);
      if (refused && !refused.ok) return (b.effects.push({ kind: "refuse", error: refused.error }), b);
      b.effects.push({ kind: "approval done", tenant: r!.tenant, execution_id: r!.execution_id });
      const next = decided(r!, event.decision);
      if (next.status === "failed") {
        endWaiting(b, next, now);
        return (settle(b, "decide", { ok: true }), b);
      }
      save(b, next);
      log(b, approvedNote(event.decision), now);
      s.asking = { what: "admission", for: "decide", plan: s.plan!, at: now };
      b.effects.push({ kind: "admit", plan: s.plan!, wait: mayWait(s.plan!, now), paid: true });
      return b;
    }
    case "cancel":
      // docs/contract.md#cancellation: one that waits ends at once, `before_start`; its provider is never called.
      if (!r || isTerminal(r.status)) return b;
      if (isWaiting(r.status) && !s.run) endWaiting(b, cancelledBeforeStart(r, now), now);
      else b.effects.push({ kind: "cancel run", graceMs: event.graceMs });
      return b;
    case "run saved":
      save(b, event.record);
      return b;
    case "run ended":
      ended(b, event.record, now);
      return b;
    case "alarm":
      return alarmRang(b, now);
    case "told position":
      if (r && isWaiting(r.status)) log(b, event.data, now);
      return b;
    case "audit answered":
      if (!r || !isTerminal(r.status) || (s.audit?.confirmed && !event.byAlarm)) return b;
      if (!event.sent) {
        // Not confirmed: the alarm sends it again later.
        if (event.byAlarm) ((s.audit = { confirmed: false, resendAt: now + AUDIT_CONFIRM_MS }), alarm(b));
        return b;
      }
      s.audit = { confirmed: true };
      if (event.byAlarm) retain(b, r, now);
      else alarm(b);
      return b;
  }
}

/**
 * A new instance: a waiting execution waits on (its plan is stored, and whatever it waits in is
 * durable too; one that was taking room at its provider takes it again, which is idempotent). A
 * running record means the instance that ran it is gone, and its provider call with it: it ends
 * failed (docs/decisions/07-execution-object-storage.md), and its tenant's slot goes on.
 */
function restarted(event: Extract<LifecycleEvent, { type: "restarted" }>, now: number): Step {
  const record = event.record;
  const b: Step = { state: record ? { record } : {}, effects: [] };
  if (!record) return b;
  if (isTerminal(record.status)) {
    b.state.audit = { confirmed: false };
  } else if (isWaiting(record.status)) {
    b.state.plan = event.plan;
    if (!event.plan) endWaiting(b, endedBeforeStart(record, lostPlan(), now), now);
    else if (record.status === "scheduled") proceed(b, event.plan, undefined, undefined, now);
  } else {
    const lost = event.lost ?? { lastSeq: 0, partial: undefined };
    save(b, lostRecord(record, lost.lastSeq, lost.partial, now));
    ended(b, b.state.record!, now);
    b.effects.push({ kind: "release slot", tenant: record.tenant, execution_id: record.execution_id });
  }
  return b;
}

function claimAnswered(b: Step, event: Extract<LifecycleEvent, { type: "claim answered" }>, now: number): Step {
  const s = b.state;
  const c = s.claiming;
  if (!c) return b;
  s.claiming = undefined;
  const late = c.late;
  if ("error" in event) {
    if (late) b.effects.push({ kind: "release permit", permit: late });
    return (refusedAfterSlot(b, c.plan, event.error, c.for, now), b);
  }
  const claim = event.claim;
  // The claim found no room but the gate granted a permit meanwhile: claim again with it.
  if (late && claim.kind === "full") return (proceed(b, c.plan, late, c.for, now), b);
  if (late && claim.kind === "claimed" && claim.permit?.id !== late.id)
    b.effects.push({ kind: "release permit", permit: late });
  const r = s.record;
  if (r && isTerminal(r.status)) {
    // Cancelled (or expired) while the permit was being taken: nothing runs.
    if (claim.kind === "claimed") {
      if (claim.permit) b.effects.push({ kind: "release permit", permit: claim.permit });
      b.effects.push({ kind: "abandon trial", plan: claim.plan });
    }
  } else if (claim.kind === "full") {
    const waiting = r ?? transition(newRecord(c.plan, now), "scheduled", now);
    const scheduled = waiting.status === "queued" ? transition(waiting, "scheduled", now) : waiting;
    wait(b, c.plan, scheduled, now, claim.position, claim.provider);
  } else startRun(b, claim.plan, r, claim.permit, now);
  return (settle(b, c.for, { ok: true }), b);
}

/** The one alarm: the end of a wait, the deadline, the audit outbox, retention. */
function alarmRang(b: Step, now: number): Step {
  const s = b.state;
  const r = s.record;
  if (!r) return b;
  if (isWaiting(r.status) && !s.run) {
    const ends = s.plan ? waitEndsAt(r, s.plan) : 0;
    if (now < ends) b.effects.push({ kind: "set alarm", at: ends });
    else endWaiting(b, endedBeforeStart(r, s.plan ? waitExpiredError(r, s.plan, now) : lostPlan(), now), now);
  } else if (!isTerminal(r.status)) {
    // Past deadline + slack with the call still open: the run's own timer did not end it.
    b.effects.push({ kind: "expire run" });
  } else if (!s.audit?.confirmed) {
    // The queue never confirmed the finished record (or this instance is new): send it again.
    b.effects.push({ kind: "send audit", record: r, byAlarm: true });
  } else retain(b, r, now);
  return b;
}
