/**
 * The moves the lifecycle's steps share (src/execution/lifecycle.ts), each on a step being built:
 * it changes the state and appends the effects in the order the shell carries them out.
 */
import type { ErrorBody, Value } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { startEvent, terminalEvent } from "./events.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { AUDIT_CONFIRM_MS, nextAlarm } from "./lifecycle-alarm.ts";
import type { Asker, Settled, Step } from "./lifecycle-types.ts";
import type { Permit } from "./provider-claim.ts";
import { isTerminal, type ExecutionRecord } from "./record.ts";
import { shedIfLate } from "./shed.ts";
import { endedBeforeStart, waitingNote } from "./waiting.ts";

/** Writes first, then adopts: memory never claims a state that storage does not hold. The record's own events go out with it. */
export function save(b: Step, record: ExecutionRecord): void {
  b.effects.push({ kind: "save", record });
  const started = b.state.record?.start_seq == null && record.start_seq != null;
  b.state.record = record;
  if (started) b.effects.push({ kind: "emit", event: startEvent(record)!, store: false });
  const end = terminalEvent(record);
  if (end) b.effects.push({ kind: "emit", event: end, store: false }, { kind: "resolve enders", record });
}

/** A `log` event of a waiting execution (docs/contract.md#streaming): numbered after the record's last, stored with it. */
export function log(b: Step, data: Record<string, Value>, now: number): void {
  const record = b.state.record!;
  const event = { seq: record.last_seq + 1, type: "log", data, at: now };
  save(b, { ...record, last_seq: event.seq });
  b.effects.push({ kind: "emit", event, store: true });
}

/** The alarm moves to when the lifecycle next needs it (src/execution/lifecycle-alarm.ts). */
export function alarm(b: Step): void {
  const at = nextAlarm(b.state);
  if (at !== undefined) b.effects.push({ kind: "set alarm", at });
}

export function settle(b: Step, asker: Asker | undefined, settled: Settled): void {
  if (asker) b.effects.push({ kind: "settle", for: asker, settled });
}

/** Waits (queued, or scheduled at a full provider): the plan is kept, the wait is said, the alarm set to its end. */
export function wait(
  b: Step,
  plan: ExecutionPlan,
  record: ExecutionRecord,
  now: number,
  position?: number,
  provider?: string,
): void {
  b.state.plan = plan;
  b.effects.push({ kind: "save plan", plan });
  save(b, record);
  b.effects.push({ kind: "placed", position });
  log(b, waitingNote(record.status, position, provider), now);
  alarm(b);
}

/** The execution ended: the audit outbox sends its record, and the alarm sends it again unless the queue confirms it first. */
export function ended(b: Step, record: ExecutionRecord, now: number): void {
  b.state.run = undefined;
  b.state.audit = { confirmed: false, resendAt: now + AUDIT_CONFIRM_MS };
  alarm(b);
  b.effects.push({ kind: "send audit", record, byAlarm: false });
}

/** A waiting execution ends without running: it lets go of whatever it waited in, and says so. */
export function endWaiting(b: Step, end: ExecutionRecord, now: number): void {
  b.effects.push({ kind: "let go", was: b.state.record!, plan: b.state.plan }, { kind: "drop plan" });
  b.state.plan = undefined;
  save(b, end);
  ended(b, end, now);
}

/**
 * The execution holds a slot of its tenant: it takes room at a provider (or waits for it,
 * scheduled) and runs. A sync call whose budget is nearly spent is shed instead (src/execution/shed.ts).
 */
export function proceed(
  b: Step,
  plan: ExecutionPlan,
  permit: Permit | undefined,
  asker: Asker | undefined,
  now: number,
) {
  try {
    if (plan.mode === "sync") shedIfLate(plan, now);
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    return refusedAfterSlot(b, plan, err.toBody(), asker, now);
  }
  b.state.claiming = { plan, ...(asker ? { for: asker } : {}) };
  b.effects.push({ kind: "claim", plan, ...(permit ? { permit } : {}) });
}

/** Refused after its slot was granted: the slot goes back; a call that waited ends with the refusal, one that never did leaves nothing. */
export function refusedAfterSlot(
  b: Step,
  plan: ExecutionPlan,
  error: ErrorBody,
  asker: Asker | undefined,
  now: number,
): void {
  b.effects.push({ kind: "release slot", tenant: plan.tenant, execution_id: plan.execution_id });
  const record = b.state.record;
  if (record && !isTerminal(record.status)) endWaiting(b, endedBeforeStart(record, error, now), now);
  settle(b, asker, { ok: false, error });
}

/** It runs: the plan is no longer kept, it leaves its line, and the deadline alarm shares the running record's commit. */
export function startRun(
  b: Step,
  plan: ExecutionPlan,
  waited: ExecutionRecord | undefined,
  permit: Permit | null,
  now: number,
): void {
  // docs/contract.md#budgets: a sync call's budget counts from acceptance, an async one's from the start of its run.
  b.state.run = { deadline: (plan.mode === "async" ? now : plan.accepted_at) + plan.timeout_ms };
  b.effects.push({ kind: "start run", plan, ...(waited ? { record: waited } : {}), permit, now });
  if (waited) b.effects.push({ kind: "drop plan" });
  b.state.plan = undefined;
  b.effects.push({ kind: "left line" });
  alarm(b);
}

/** Retention window over (docs/contract.md#retention): everything goes, and the id answers 404 from now on. */
export function retain(b: Step, record: ExecutionRecord, now: number): void {
  if (now >= record.ended_at! + record.retention_ms) {
    b.state = {};
    b.effects.push({ kind: "delete" });
  } else alarm(b);
}
