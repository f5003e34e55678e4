/**
 * ExecutionObject: one Durable Object per execution that can be watched (async, streamed or
 * keyed). A shell over plain code in src/: it admits the call, runs it (src/execution/run.ts),
 * keeps its record and events (execution-store.ts), fans its events out to subscribed edges,
 * and keeps three promises with one alarm — the deadline (an in-memory timer that died is
 * backed up), the audit outbox (the finished record reaches the queue), and retention.
 */
import { DurableObject } from "cloudflare:workers";
import type { ExecutionEvent, ExecutionView, Outcome } from "../src/contract.ts";
import { errorBody, RuntimeError } from "../src/errors.ts";
import { auditEntryOf, sendAudit, type AuditConfirm } from "../src/audit/outbox.ts";
import type { ExecutionPlan } from "../src/execution/dispatch.ts";
import { terminalEvent, startEvent, withRecordEvents } from "../src/execution/events.ts";
import { newObjectExecutionId, objectStub } from "../src/execution/ids.ts";
import { isTerminal, toView, type ExecutionRecord } from "../src/execution/record.ts";
import { ExecutionRun, lostRecord } from "../src/execution/run.ts";
import { MAX_ATTEMPT } from "../src/execution/usage.ts";
import { planExecution } from "../src/pipeline/plan.ts";
import { shedIfLate } from "../src/execution/shed.ts";
import { takeTrial } from "../src/execution/trial.ts";
import { admitExecution, releaseExecution } from "../src/policy/admission.ts";
import { Fanout } from "../src/stream/fanout.ts";
import { encodeEventLine } from "../src/stream/ndjson.ts";
import { ExecutionStore, type KeyBinding } from "./execution-store.ts";
import type { DeprecationNotice } from "../src/registry/catalog.ts";
import type { Delivery, EventsAnswer, KeyedCall, StartAnswer } from "../src/execution/dispatch.ts";

/** How long past its deadline an execution may go before the alarm ends it regardless. */
const DEADLINE_SLACK_MS = 5_000;
/** How long the audit outbox waits for the queue's acknowledgement before sending again. */
const AUDIT_CONFIRM_MS = 30_000;

export class ExecutionObject extends DurableObject<Env> {
  readonly #store: ExecutionStore;
  readonly #fanout = new Fanout(encodeEventLine, (after, upTo, limit) => this.#logPage(after, upTo, limit));
  #record: ExecutionRecord | undefined;
  #loaded = false;
  #run: ExecutionRun | undefined;
  /** Set while a keyed call is being planned and admitted: duplicates wait for it. */
  #starting: Promise<unknown> | undefined;
  #auditConfirmed = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new ExecutionStore(ctx.storage.kv);
  }

  /** Starts a planned execution here (unkeyed: planned at the edge). */
  async start(plan: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    this.#recover();
    if (this.#record) return this.#attach(this.#record.tenant === plan.tenant, delivery, true);
    return this.#begin(plan, delivery);
  }

  /**
   * A keyed call (TRT-002 §11). A duplicate within the key's TTL gets the original before any
   * other stage runs; a new use runs stages 2-5 here and starts the execution — in this object
   * the first time, in a new one (a new id) once an earlier use's TTL has passed.
   */
  async startKeyed(call: KeyedCall, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    this.#recover();
    while (this.#starting) await this.#starting.catch(() => {});
    const binding = this.#binding();
    const now = Date.now();
    if (binding && (now < binding.expires_at || !this.#boundEnded(binding))) {
      if (binding.fingerprint !== call.fingerprint) {
        return refusal("idempotency_conflict", "this idempotency key was used with a different request", { execution_id: binding.execution_id });
      }
      if (binding.execution_id === this.#record?.execution_id) return this.#attach(this.#record.tenant === call.caller.tenant, delivery, true);
      return objectStub(this.env, binding.execution_id).attach(call.caller.tenant, delivery);
    }
    const here = this.#record === undefined;
    const executionId = here ? `exec_${this.ctx.id.toString()}` : newObjectExecutionId(this.env);
    // Duplicates wait until this use of the key has started (or was refused), then attach.
    let started!: () => void;
    this.#starting = new Promise<void>((resolve) => (started = resolve));
    let begun: Outcome<StartAnswer>;
    let deprecation: DeprecationNotice | undefined;
    try {
      const planned = await planExecution(this.env, call.caller, call.request, { acceptedAt: call.accepted_at, trace: call.trace, face: call.face, executionId, fingerprint: call.fingerprint });
      deprecation = planned.deprecation;
      if (here) {
        begun = await this.#begin(planned.plan, "accepted");
      } else {
        // Past its TTL the key moves on to a new execution under a new id (TRT-002 §11); the
        // old one stays readable here under its own id until its retention ends.
        begun = await objectStub(this.env, executionId).start(planned.plan, "accepted");
        if (begun.ok) this.#store.saveKey({ execution_id: executionId, fingerprint: call.fingerprint, expires_at: now + planned.plan.idempotency!.ttl_ms });
      }
    } catch (err) {
      return internal(err);
    } finally {
      this.#starting = undefined;
      started();
    }
    if (!begun.ok) return begun;
    if (!here) return withDeprecation(await objectStub(this.env, executionId).attach(call.caller.tenant, delivery, false), deprecation);
    return withDeprecation(await this.#attach(true, delivery, false), deprecation);
  }

  /** A keyed call forwarded by the key's first object: the execution this object runs for that key. */
  async attach(tenant: string, delivery: Delivery, replayed = true): Promise<Outcome<StartAnswer>> {
    this.#recover();
    return this.#attach(this.#record?.tenant === tenant, delivery, replayed);
  }

  /** The current view for GET; null for another tenant or no record (DESIGN.md 7). */
  async view(tenant: string): Promise<ExecutionView | null> {
    this.#recover();
    return this.#owned(tenant) ? this.#view(this.#record!) : null;
  }

  /** The events after `after`, then live ones until the terminal event (TRT-002 §7). */
  async events(tenant: string, after: number): Promise<Outcome<EventsAnswer>> {
    this.#recover();
    if (!this.#owned(tenant)) return refusal("execution_not_found", "no such execution");
    const record = this.#record!;
    // Resuming at or past the terminal event leaves nothing to send (exactly one terminal event).
    if (isTerminal(record.status) && after >= record.last_seq + 1) return { ok: true, value: { kind: "ended" } };
    const stream = this.#subscribe(after);
    if (!stream) return refusal("rate_limited", "this execution has as many stream subscribers as it serves", { reason: "subscribers", retry_after_ms: 5_000 });
    return { ok: true, value: { kind: "stream", stream } };
  }

  /** Its event streams: subscribers, event bytes waiting for them now and at most so far (≤ MAX_FANOUT_BYTES). For tests and operators. */
  async streams(): Promise<{ subscribers: number; queued_bytes: number; peak_queued_bytes: number }> {
    return { subscribers: this.#fanout.size, queued_bytes: this.#fanout.queuedBytes, peak_queued_bytes: this.#fanout.peakQueuedBytes };
  }

  /**
   * TRT-002 §8: signal the provider, give it `graceMs` to stop, then stop waiting. Answers when
   * the execution has ended; a finished one is returned as it is (`already_finished`).
   */
  async cancel(tenant: string, graceMs: number): Promise<ExecutionView | null> {
    this.#recover();
    if (!this.#owned(tenant)) return null;
    const record = this.#record!;
    if (isTerminal(record.status)) {
      const view = this.#view(record);
      return view.cancellation ? view : { ...view, cancellation: { requested_at: new Date().toISOString(), outcome: "already_finished" } };
    }
    return this.#view(await this.#run!.cancel(graceMs));
  }

  /**
   * A provider invocation's CPU report for one attempt (src/audit/tail.ts), which the platform
   * sends after the invocation has ended: kept beside the record, read into every view.
   */
  async recordUsage(attempt: number, cpuMs: number | null): Promise<void> {
    this.#recover();
    if (!this.#record || !Number.isInteger(attempt) || attempt < 1 || attempt > MAX_ATTEMPT) return;
    this.#store.saveUsage({ attempt, cpu_ms: typeof cpuMs === "number" && Number.isFinite(cpuMs) && cpuMs >= 0 ? cpuMs : null });
  }

  /** One alarm for three promises: the deadline, the audit outbox, retention. */
  async alarm(): Promise<void> {
    this.#recover();
    const record = this.#record;
    if (!record) return;
    if (!isTerminal(record.status)) {
      // Past deadline + slack with the call still open: the in-memory timer did not end it.
      this.#run?.expire();
      return;
    }
    if (!this.#auditConfirmed) {
      // The queue never confirmed the finished record (or this instance is new): send it
      // again; the consumer keeps one record per execution whatever it receives twice.
      await this.#sendAudit(record);
      if (!this.#auditConfirmed) return;
    }
    if (Date.now() >= record.ended_at! + record.retention_ms) {
      // TRT-002 §9 retention window over: the id answers 404 from now on.
      await this.ctx.storage.deleteAll();
      this.#record = undefined;
      return;
    }
    await this.ctx.storage.setAlarm(record.ended_at! + record.retention_ms);
  }

  async #begin(planned: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    // Admission (rate and concurrency) before anything is written: a refused call leaves nothing.
    const admitted = await admitExecution(this.env, planned);
    if (!admitted.ok) return admitted;
    let plan: ExecutionPlan;
    try {
      shedIfLate(planned);
      // After admission: a call refused before now never held a half-open provider's trial.
      plan = await takeTrial(this.env, planned);
    } catch (err) {
      void releaseExecution(this.env, planned.tenant, planned.execution_id);
      return internal(err);
    }
    this.#run = ExecutionRun.begin(this.env, plan, {
      background: (p) => this.ctx.waitUntil(p),
      save: (record) => this.#save(record),
      emit: (seq, type, data, at) => {
        const event = { seq, type, data, at };
        this.#store.appendEvent(event);
        this.#fanout.publish(event);
      },
    });
    // The deadline alarm shares the record's commit (DESIGN.md 8: one commit before the call).
    void this.ctx.storage.setAlarm(plan.accepted_at + plan.timeout_ms + DEADLINE_SLACK_MS);
    const run = this.#run;
    void run.done.then((record) => this.#ended(record));
    // The tenant's slot is held until the provider's call has really returned (WORK_CAP_MS at most).
    void run.workStopped().then(() => releaseExecution(this.env, plan.tenant, plan.execution_id));
    return this.#attach(true, delivery, false);
  }

  async #attach(owned: boolean, delivery: Delivery, replayed: boolean): Promise<Outcome<StartAnswer>> {
    if (!owned) return refusal("execution_not_found", "no such execution");
    const stream = delivery === "stream" ? this.#subscribe(0) : undefined;
    if (delivery === "stream" && !stream) return refusal("rate_limited", "this execution has as many stream subscribers as it serves", { reason: "subscribers", retry_after_ms: 5_000 });
    if (delivery === "end" && this.#run && !isTerminal(this.#record!.status)) await this.#run.done;
    // The answer to a POST is the record as it ended, the same for its replays (TRT-002 §11);
    // CPU reports arrive after the end and show in GET (src/execution/usage.ts).
    return { ok: true, value: { view: toView(this.#record!), replayed, ...(stream ? { stream } : {}) } };
  }

  #ended(record: ExecutionRecord): void {
    this.#run = undefined;
    // The audit outbox: the alarm sends the record again unless the queue confirms it first.
    void this.ctx.storage.setAlarm(Date.now() + AUDIT_CONFIRM_MS);
    void this.#sendAudit(record);
  }

  async #sendAudit(record: ExecutionRecord): Promise<void> {
    const confirm: AuditConfirm = await sendAudit(this.env, { kind: "finished", record: auditEntryOf(record), retention_ms: record.retention_ms });
    if (confirm !== "sent") return;
    this.#auditConfirmed = true;
    await this.ctx.storage.setAlarm(record.ended_at! + record.retention_ms);
  }

  #save(record: ExecutionRecord): void {
    // Writes first, then adopts: memory never claims a state that storage does not hold.
    this.#store.saveRecord(record);
    const started = this.#record?.start_seq == null && record.start_seq != null;
    this.#record = record;
    if (started) this.#fanout.publish(startEvent(record)!);
    const end = terminalEvent(record);
    if (end) this.#fanout.publish(end);
  }

  #subscribe(after: number): ReadableStream<Uint8Array> | undefined {
    const record = this.#record!;
    const upTo = this.#run ? this.#run.lastSeq : record.last_seq + 1;
    return this.#fanout.subscribe(after, upTo, isTerminal(record.status));
  }

  /** A page of the event log for the fan-out: stored events, with the record's own (start, terminal) where they fall. */
  #logPage(after: number, upTo: number, limit: number): ExecutionEvent[] {
    const record = this.#record;
    if (!record) return [];
    const stored = this.#store.events(after, limit).filter((e) => e.seq <= upTo);
    const high = stored.length < limit ? upTo : stored.at(-1)!.seq;
    return withRecordEvents(record, stored, after).filter((e) => e.seq <= high);
  }

  /** The key's current binding: this object's own execution, or one it moved on to. */
  #binding(): KeyBinding | undefined {
    const moved = this.#store.key();
    if (moved) return moved;
    const r = this.#record;
    return r?.idempotency ? { execution_id: r.execution_id, fingerprint: r.idempotency.fingerprint, expires_at: r.idempotency.expires_at } : undefined;
  }

  #boundEnded(binding: KeyBinding): boolean {
    // Only this object's own execution is known here; one elsewhere had its TTL counted from its start.
    return binding.execution_id !== this.#record?.execution_id || isTerminal(this.#record.status);
  }

  /**
   * Loads the record on first use. A fresh instance finding an unfinished record means the
   * instance that ran it is gone (restart): its provider call went with it.
   */
  #recover(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    const record = this.#store.record();
    if (!record || isTerminal(record.status)) {
      this.#record = record;
      this.#auditConfirmed = false;
      return;
    }
    const { lastSeq, partial } = this.#store.scan(record.partial_merge ?? "replace");
    this.#record = record;
    this.#save(lostRecord(record, lastSeq, partial));
    this.#ended(this.#record);
  }

  #view(record: ExecutionRecord): ExecutionView {
    return toView(record, this.#store.usage());
  }

  #owned(tenant: string): boolean {
    // Another tenant's id answers exactly like an unknown one (DESIGN.md 7).
    return this.#record !== undefined && this.#record.tenant === tenant;
  }
}

function refusal<T>(code: Parameters<typeof errorBody>[0], message: string, details?: Record<string, unknown>): Outcome<T> {
  return { ok: false, error: errorBody(code, message, details) };
}

function internal<T>(err: unknown): Outcome<T> {
  if (err instanceof RuntimeError) return { ok: false, error: err.toBody() };
  console.error(JSON.stringify({ msg: "execution object failed", error: String(err) }));
  return refusal("internal", "the runtime failed while starting the execution");
}

function withDeprecation(outcome: Outcome<StartAnswer>, deprecation: DeprecationNotice | undefined): Outcome<StartAnswer> {
  return outcome.ok && deprecation ? { ok: true, value: { ...outcome.value, deprecation } } : outcome;
}
