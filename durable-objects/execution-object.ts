/**
 * ExecutionObject: one Durable Object per execution that can be watched (async, streamed or
 * keyed) or that waits (docs/contract.md#waiting). A shell over plain code in src/execution/: it
 * applies a keyed call's rules (keyed-start.ts), admits the call, lets it wait (waiting.ts, for a
 * person: approval-wait.ts; its place in line: position-watch.ts), runs it (run.ts), keeps its
 * record and events (execution-store.ts), fans its events out to subscribed edges, and keeps its
 * promises with one alarm — the end of a wait (approval window, wait bound), the deadline (an
 * in-memory timer that died is backed up), the audit outbox (finished-audit.ts), and retention.
 *
 *   (awaiting_approval: a person decides →) queued: the tenant's object grants a slot (`granted`)
 *   → scheduled: the provider's gate grants a permit (`capacityGranted`) → running → the end
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalDecision, ExecutionEvent, ExecutionView, Outcome, Value } from "../src/contract.ts";
import { RuntimeError } from "../src/errors.ts";
import {
  abandonTrial,
  claimGranted,
  claimProvider,
  permitOf,
  type Claim,
  type Permit,
} from "../src/execution/provider-claim.ts";
import type { ExecutionPlan } from "../src/execution/execution-plan.ts";
import { terminalEvent, startEvent, withRecordEvents } from "../src/execution/events.ts";
import { newObjectExecutionId, objectStub } from "../src/execution/ids.ts";
import { isTerminal, isWaiting, toView, transition, type ExecutionRecord } from "../src/execution/record.ts";
import { ExecutionRun, lostRecord, newRecord } from "../src/execution/run.ts";
import {
  approvalExpiry,
  cancelledBeforeStart,
  endedBeforeStart,
  mayWait,
  waitEndsAt,
  waitExpiredError,
  waitingNote,
} from "../src/execution/waiting.ts";
import { letGoOfWait } from "../src/execution/wait-exit.ts";
import { usageReport } from "../src/execution/usage.ts";
import { FinishedAudit } from "../src/execution/finished-audit.ts";
import { planExecution } from "../src/pipeline/plan.ts";
import { shedIfLate } from "../src/execution/shed.ts";
import { admitExecution, refusal as admissionRefusal, releaseExecution } from "../src/policy/admission.ts";
import { tenantStub } from "../src/object-stubs.ts";
import { Fanout } from "../src/stream/fanout.ts";
import { encodeEventLine } from "../src/stream/ndjson.ts";
import { ExecutionStore } from "./execution-store.ts";
import type { DeprecationNotice } from "../src/registry/catalog.ts";
import type {
  Delivery,
  EventsAnswer,
  ExecutionObjectRpc,
  KeyedCall,
  StartAnswer,
  StreamsAnswer,
} from "../src/execution/object-rpc.ts";
import { inScope, type ExecutionScope } from "../src/auth/roles.ts";
import { currentBinding, KeyUses, keyedStep, movedBinding, withDeprecation } from "../src/execution/keyed-start.ts";
import { lookPosition, PositionWatch } from "../src/execution/position-watch.ts";
import {
  approvalRequested,
  approvedNote,
  awaitingApproval,
  decided,
  decisionRefused,
  pendingApproval,
} from "../src/execution/approval-wait.ts";
import { internal, internalBody, lostPlan, refusal, subscribersFull } from "../src/execution/object-answers.ts";
import { relayOf } from "../src/execution/provider-relay.ts";

/** How long past its deadline an execution may go before the alarm ends it regardless. */
const DEADLINE_SLACK_MS = 5_000;

export class ExecutionObject extends DurableObject<Env> implements ExecutionObjectRpc {
  readonly #store: ExecutionStore;
  readonly #fanout = new Fanout(encodeEventLine, (after, upTo, limit) => this.#logPage(after, upTo, limit));
  #record: ExecutionRecord | undefined;
  #loaded = false;
  #run: ExecutionRun | undefined;
  /** The plan while the execution waits (also in storage as "p"). */
  #plan: ExecutionPlan | undefined;
  /** A slot or a permit was granted and the run is being started: a second grant changes nothing. */
  #proceeding = false;
  /** A permit the gate granted while a claim was under way: used if that claim found no room. */
  #grantedPermit: Permit | undefined;
  /** Its place in the line it waits in. */
  readonly #line = new PositionWatch({
    watched: () => this.#record && { record: this.#record, subscribers: this.#fanout.size, running: !!this.#run },
    look: (record) => lookPosition(this.env, record, this.#plan),
    tell: (status, position) => this.#emitWaiting({ message: `position ${position}`, waiting: status, position }),
  });
  /** Callers waiting for the end (a sync caller of an execution that waits). */
  readonly #enders: ((r: ExecutionRecord) => void)[] = [];
  /** The keyed call being planned and admitted: duplicates wait for it. */
  readonly #keyUses = new KeyUses();
  /** The finished record on its way to the audit queue. */
  readonly #audit = new FinishedAudit(this.env, (at) => this.ctx.storage.setAlarm(at));

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
   * A keyed call (docs/contract.md#idempotency). A duplicate within the key's TTL gets the original before any
   * other stage runs; a new use runs stages 2-5 here and starts the execution — in this object
   * the first time, in a new one (a new id) once an earlier use's TTL has passed.
   */
  async startKeyed(call: KeyedCall, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    this.#recover();
    // No await between the end of this loop and begin(): two duplicates woken together never both start.
    while (this.#keyUses.inProgress) await this.#keyUses.inProgress;
    const now = Date.now();
    const step = keyedStep(currentBinding(this.#store.key(), this.#record), call.fingerprint, this.#record, now);
    if (step.kind === "conflict")
      return refusal("idempotency_conflict", "this idempotency key was used with a different request", {
        execution_id: step.execution_id,
      });
    if (step.kind === "replay")
      return step.here
        ? this.#attach(this.#record!.tenant === call.caller.tenant, delivery, true)
        : objectStub(this.env, step.execution_id).attach(call.caller.tenant, delivery);
    const executionId = step.here ? `exec_${this.ctx.id.toString()}` : newObjectExecutionId(this.env);
    // Duplicates wait until this use of the key has started (or was refused), then attach.
    const started = this.#keyUses.begin();
    let begun: Outcome<StartAnswer>;
    let deprecation: DeprecationNotice | undefined;
    try {
      const planned = await planExecution(this.env, call.caller, call.request, {
        acceptedAt: call.accepted_at,
        trace: call.trace,
        face: call.face,
        executionId,
        fingerprint: call.fingerprint,
        paid: call.paid,
      });
      deprecation = planned.deprecation;
      if (step.here) {
        begun = await this.#begin(planned.plan, "accepted");
      } else {
        // Past its TTL the key moves on to a new execution under a new id (docs/contract.md#idempotency); the
        // old one stays readable here under its own id until its retention ends.
        begun = await objectStub(this.env, executionId).start(planned.plan, "accepted");
        if (begun.ok)
          this.#store.saveKey(movedBinding(executionId, call.fingerprint, planned.plan.idempotency!.ttl_ms, now));
      }
    } catch (err) {
      return internal(err);
    } finally {
      started();
    }
    if (!begun.ok) return begun;
    const attached = step.here
      ? await this.#attach(true, delivery, false)
      : await objectStub(this.env, executionId).attach(call.caller.tenant, delivery, false);
    return withDeprecation(attached, deprecation);
  }

  /** A keyed call forwarded by the key's first object: the execution this object runs for that key. */
  async attach(tenant: string, delivery: Delivery, replayed = true): Promise<Outcome<StartAnswer>> {
    this.#recover();
    return this.#attach(this.#record?.tenant === tenant, delivery, replayed);
  }

  /** The current view for GET (with its place in line while it waits); null outside the caller's scope or no record. */
  async view(scope: ExecutionScope): Promise<ExecutionView | null> {
    this.#recover();
    if (!this.#owned(scope)) return null;
    if (this.#record!.status === "queued" || this.#record!.status === "scheduled") await this.#line.look(this.#record!);
    return this.#view(this.#record!, this.#line.position);
  }

  /** The events after `after`, then live ones until the terminal event (docs/contract.md#streaming). */
  async events(scope: ExecutionScope, after: number): Promise<Outcome<EventsAnswer>> {
    this.#recover();
    if (!this.#owned(scope)) return refusal("execution_not_found", "no such execution");
    const record = this.#record!;
    // Resuming at or past the terminal event leaves nothing to send (exactly one terminal event).
    if (isTerminal(record.status) && after >= record.last_seq + 1) return { ok: true, value: { kind: "ended" } };
    const stream = this.#subscribe(after);
    if (!stream) return subscribersFull();
    return { ok: true, value: { kind: "stream", stream } };
  }

  /** Its event streams: subscribers, event bytes waiting for them now and at most so far (≤ MAX_FANOUT_BYTES). For tests and operators. */
  async streams(): Promise<StreamsAnswer> {
    return {
      subscribers: this.#fanout.size,
      queued_bytes: this.#fanout.queuedBytes,
      peak_queued_bytes: this.#fanout.peakQueuedBytes,
    };
  }

  /**
   * docs/contract.md#cancellation: signal the provider, give it `graceMs` to stop, then stop waiting. Answers when
   * the execution has ended; a finished one is returned as it is (`already_finished`); one that
   * waits ends at once, `before_start`, and its provider is never called.
   */
  async cancel(scope: ExecutionScope, graceMs: number): Promise<ExecutionView | null> {
    this.#recover();
    if (!this.#owned(scope)) return null;
    const record = this.#record!;
    if (isTerminal(record.status)) {
      const view = this.#view(record);
      return view.cancellation
        ? view
        : { ...view, cancellation: { requested_at: new Date().toISOString(), outcome: "already_finished" } };
    }
    if (isWaiting(record.status) && !this.#run)
      return this.#view(this.#endWaiting(cancelledBeforeStart(record, Date.now())));
    return this.#view(await this.#run!.cancel(graceMs));
  }

  /**
   * A provider invocation's CPU report for one attempt (src/audit/tail.ts), which the platform
   * sends after the invocation has ended: kept beside the record, read into every view.
   */
  async recordUsage(attempt: number, cpuMs: number | null): Promise<void> {
    this.#recover();
    const report = usageReport(attempt, cpuMs);
    if (this.#record && report) this.#store.saveUsage(report);
  }

  /**
   * A person with the approver role decides (docs/contract.md#approvals). Approved: the call goes on to its
   * tenant's queue; rejected: it ends `failed` with `approval_rejected`. Anything but a pending
   * approval is `approval_not_pending` and changes nothing; another tenant's id is not found.
   */
  async decide(
    tenant: string,
    decision: ApprovalDecision,
    selfApproval = false,
  ): Promise<Outcome<ExecutionView> | null> {
    this.#recover();
    if (!this.#owned({ tenant, agent: null })) return null;
    const record = this.#record!;
    const refused = decisionRefused(record, decision, selfApproval);
    if (refused) return refused;
    void tenantStub(this.env, record.tenant)
      .approvalDone(record.execution_id)
      .catch(() => {});
    const next = decided(record, decision);
    if (next.status === "failed") return { ok: true, value: toView(this.#endWaiting(next)) };
    this.#save(next);
    this.#emitWaiting(approvedNote(decision));
    await this.#admit(this.#plan!, true);
    return { ok: true, value: this.#view(this.#record!, this.#line.position) };
  }

  /** The tenant's object handed this queued execution a slot: it goes on (true), or gives it back (false). */
  async granted(): Promise<boolean> {
    this.#recover();
    const record = this.#record;
    if (!record || record.status !== "queued" || !this.#plan)
      return record?.status === "scheduled" || record?.status === "running";
    if (!this.#proceeding) {
      // Stored before the grant is confirmed: a restart after this goes on from `scheduled`.
      this.#save(transition(record, "scheduled", Date.now()));
      void this.#proceed(this.#plan);
    }
    return true;
  }

  /** The provider's gate handed this scheduled execution a permit: it runs (true), or gives it back (false). */
  async capacityGranted(provider: string, permitId: string): Promise<boolean> {
    this.#recover();
    const record = this.#record;
    if (!record || record.status !== "scheduled" || !this.#plan || this.#run) return false;
    const permit = permitOf(this.env, provider, permitId);
    if (this.#proceeding) this.#grantedPermit = permit;
    else void this.#proceed(this.#plan, permit);
    return true;
  }

  /** One alarm: the end of a wait, the deadline, the audit outbox, retention. */
  async alarm(): Promise<void> {
    this.#recover();
    const record = this.#record;
    if (!record) return;
    if (isWaiting(record.status) && !this.#run) {
      const ends = this.#plan ? waitEndsAt(record, this.#plan) : 0;
      if (Date.now() < ends) return this.ctx.storage.setAlarm(ends);
      this.#endWaiting(
        endedBeforeStart(
          record,
          this.#plan ? waitExpiredError(record, this.#plan, Date.now()) : lostPlan(),
          Date.now(),
        ),
      );
      return;
    }
    if (!isTerminal(record.status)) {
      // Past deadline + slack with the call still open: the in-memory timer did not end it.
      this.#run?.expire();
      return;
    }
    if (!this.#audit.confirmed) {
      // The queue never confirmed the finished record (or this instance is new): send it again.
      await this.#audit.send(record);
      if (!this.#audit.confirmed) return;
    }
    if (Date.now() >= record.ended_at! + record.retention_ms) {
      // Retention window over (docs/contract.md#retention): the id answers 404 from now on.
      await this.ctx.storage.deleteAll();
      this.#record = undefined;
      return;
    }
    await this.ctx.storage.setAlarm(record.ended_at! + record.retention_ms);
  }

  async #begin(planned: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    if (planned.approval) {
      const refused = await this.#awaitApproval(planned);
      if (refused) return refused;
      return this.#attach(true, delivery, false);
    }
    // Admission (rate and concurrency) before anything is written: a refused call leaves nothing.
    const admitted = await admitExecution(this.env, planned, {
      wait: mayWait(planned, Date.now()),
      paid: planned.paid,
    });
    if (!admitted.ok) return admitted;
    if (admitted.value.queued !== undefined) {
      this.#wait(planned, newRecord(planned, Date.now()), admitted.value.queued);
      return this.#attach(true, delivery, false);
    }
    const started = await this.#proceed(planned);
    if (!started.ok) return started;
    return this.#attach(true, delivery, false);
  }

  /** A call for a person to approve: its tokens and a place among the tenant's pending approvals, then it waits. */
  async #awaitApproval(planned: ExecutionPlan): Promise<Outcome<StartAnswer> | undefined> {
    const now = Date.now();
    const expires = approvalExpiry(planned, planned.approval!.window_ms, now);
    const accepted = await tenantStub(this.env, planned.tenant).awaitApproval(
      pendingApproval(planned, expires),
      planned.limits,
      planned.paid,
    );
    if (!accepted.ok) return { ok: false, error: admissionRefusal(accepted, planned.tool).toBody() };
    this.#plan = planned;
    this.#store.savePlan(planned);
    this.#save(awaitingApproval(planned, now, expires));
    this.#emitWaiting(approvalRequested(planned, expires));
    void this.ctx.storage.setAlarm(expires);
    return undefined;
  }

  /** After approval: a slot of its tenant now, or a place in the tenant's queue (its tokens were taken when it was accepted). */
  async #admit(plan: ExecutionPlan, paid: boolean): Promise<void> {
    const admitted = await admitExecution(this.env, plan, { wait: mayWait(plan, Date.now()), paid }).catch((err) => ({
      ok: false as const,
      error: internalBody(err),
    }));
    const record = this.#record!;
    if (record.status !== "queued") return; // cancelled meanwhile
    if (!admitted.ok) return void this.#endWaiting(endedBeforeStart(record, admitted.error, Date.now()));
    if (admitted.value.queued !== undefined) return this.#wait(plan, record, admitted.value.queued);
    this.#save(transition(record, "scheduled", Date.now()));
    await this.#proceed(plan);
  }

  /** Waits (queued, or scheduled at a full provider): the plan is kept, the wait is said, the alarm set to its end. */
  #wait(plan: ExecutionPlan, record: ExecutionRecord, position: number | undefined, provider?: string): void {
    this.#plan = plan;
    this.#store.savePlan(plan);
    this.#save(record);
    this.#line.placed(position);
    this.#emitWaiting(waitingNote(record.status, position, provider));
    void this.ctx.storage.setAlarm(waitEndsAt(this.#record!, plan));
    if (this.#fanout.size > 0) this.#line.watch();
  }

  /**
   * The execution holds a slot of its tenant: it takes room at a provider (or waits for it,
   * scheduled) and runs. A call refused here before it ever waited leaves nothing but its
   * refusal; one that waited ends with it.
   */
  async #proceed(plan: ExecutionPlan, granted?: Permit): Promise<Outcome<void>> {
    this.#proceeding = true;
    let claim: Claim | undefined;
    try {
      if (plan.mode === "sync") shedIfLate(plan);
      if (granted) claim = await claimGranted(this.env, plan, granted);
      claim ??= await claimProvider(this.env, plan, { wait: true });
    } catch (err) {
      this.#proceeding = false;
      return this.#refusedAfterSlot(plan, err);
    }
    this.#proceeding = false;
    const late = this.#grantedPermit;
    this.#grantedPermit = undefined;
    if (late && claim.kind === "full") return this.#proceed(plan, late);
    if (late && claim.kind === "claimed" && claim.permit?.id !== late.id) late.release();
    const record = this.#record;
    if (record && isTerminal(record.status)) {
      // Cancelled (or expired) while the permit was being taken: nothing runs.
      if (claim.kind === "claimed") {
        claim.permit?.release();
        await abandonTrial(this.env, claim.plan);
      }
      return { ok: true, value: undefined };
    }
    if (claim.kind === "full") {
      const waiting = record ?? transition(newRecord(plan, Date.now()), "scheduled", Date.now());
      this.#wait(
        plan,
        waiting.status === "queued" ? transition(waiting, "scheduled", Date.now()) : waiting,
        claim.position,
        claim.provider,
      );
      return { ok: true, value: undefined };
    }
    this.#startRun(claim.plan, record, claim.permit);
    return { ok: true, value: undefined };
  }

  #refusedAfterSlot(plan: ExecutionPlan, err: unknown): Outcome<void> {
    void releaseExecution(this.env, plan.tenant, plan.execution_id);
    const body = err instanceof RuntimeError ? err.toBody() : internalBody(err);
    const record = this.#record;
    if (record && !isTerminal(record.status)) this.#endWaiting(endedBeforeStart(record, body, Date.now()));
    return { ok: false, error: body };
  }

  #startRun(plan: ExecutionPlan, waited: ExecutionRecord | undefined, permit: Permit | null): void {
    this.#run = ExecutionRun.begin(
      this.env,
      plan,
      {
        background: (p) => this.ctx.waitUntil(p),
        relay: relayOf(this.ctx.exports),
        save: (record) => this.#save(record),
        emit: (seq, type, data, at) => {
          const event = { seq, type, data, at };
          this.#store.appendEvent(event);
          this.#fanout.publish(event);
        },
      },
      { record: waited, permit },
    );
    if (waited) this.#store.dropPlan();
    this.#plan = undefined;
    this.#line.left();
    // The deadline alarm shares the record's commit (one commit before the call: each await-separated write before it would add a commit to the hot path).
    void this.ctx.storage.setAlarm(this.#run.deadline + DEADLINE_SLACK_MS);
    const run = this.#run;
    void run.done.then((record) => this.#ended(record));
    // The tenant's slot is held until the provider's call has really returned (WORK_CAP_MS at most).
    void run.workStopped().then(() => releaseExecution(this.env, plan.tenant, plan.execution_id));
  }

  /** A waiting execution ends without running: it lets go of whatever it waited in, and says so. */
  #endWaiting(ended: ExecutionRecord): ExecutionRecord {
    letGoOfWait(this.env, this.#record!, this.#plan);
    this.#store.dropPlan();
    this.#plan = undefined;
    this.#save(ended);
    this.#ended(ended);
    return ended;
  }

  async #attach(owned: boolean, delivery: Delivery, replayed: boolean): Promise<Outcome<StartAnswer>> {
    if (!owned) return refusal("execution_not_found", "no such execution");
    const stream = delivery === "stream" ? this.#subscribe(0) : undefined;
    if (delivery === "stream" && !stream) return subscribersFull();
    if (delivery === "end" && !isTerminal(this.#record!.status)) {
      await new Promise<ExecutionRecord>((resolve) => this.#enders.push(resolve));
    }
    // The answer to a POST is the record as it ended, the same for its replays (docs/contract.md#idempotency);
    // CPU reports arrive after the end and show in GET (src/execution/usage.ts).
    return {
      ok: true,
      value: { view: toView(this.#record!, [], this.#line.position), replayed, ...(stream ? { stream } : {}) },
    };
  }

  #ended(record: ExecutionRecord): void {
    this.#run = undefined;
    this.#audit.ended(record, Date.now());
  }

  #save(record: ExecutionRecord): void {
    // Writes first, then adopts: memory never claims a state that storage does not hold.
    this.#store.saveRecord(record);
    const started = this.#record?.start_seq == null && record.start_seq != null;
    this.#record = record;
    if (started) this.#fanout.publish(startEvent(record)!);
    const end = terminalEvent(record);
    if (end) {
      this.#fanout.publish(end);
      for (const resolve of this.#enders.splice(0)) resolve(record);
    }
  }

  /** A `log` event of a waiting execution (docs/contract.md#streaming): numbered after the record's last, stored with it. */
  #emitWaiting(data: Record<string, Value>): void {
    const record = this.#record!;
    const event: ExecutionEvent = { seq: record.last_seq + 1, type: "log", data, at: Date.now() };
    this.#store.appendEvent(event);
    this.#save({ ...record, last_seq: event.seq });
    this.#fanout.publish(event);
  }

  #subscribe(after: number): ReadableStream<Uint8Array> | undefined {
    const record = this.#record!;
    const upTo = this.#run ? this.#run.lastSeq : isTerminal(record.status) ? record.last_seq + 1 : record.last_seq;
    const stream = this.#fanout.subscribe(after, upTo, isTerminal(record.status));
    if (stream && isWaiting(record.status)) this.#line.watch();
    return stream;
  }

  /** A page of the event log for the fan-out: stored events, with the record's own (start, terminal) where they fall. */
  #logPage(after: number, upTo: number, limit: number): ExecutionEvent[] {
    const record = this.#record;
    if (!record) return [];
    const stored = this.#store.events(after, limit).filter((e) => e.seq <= upTo);
    const high = stored.length < limit ? upTo : stored.at(-1)!.seq;
    return withRecordEvents(record, stored, after).filter((e) => e.seq <= high);
  }

  /**
   * Loads the record on first use. A waiting execution waits on: its plan is in storage, and
   * whatever it waits in (the tenant's queue, the provider's gate, the pending approvals) is
   * durable too; one that was taking room at its provider takes it again (idempotent). A fresh
   * instance finding a running record means the instance that ran it is gone (restart): its
   * provider call went with it, and its tenant's slot goes on to the next in line.
   */
  #recover(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    const record = this.#store.record();
    if (!record || isTerminal(record.status)) {
      this.#record = record;
      return;
    }
    if (isWaiting(record.status)) {
      this.#record = record;
      this.#plan = this.#store.plan();
      if (!this.#plan) this.#endWaiting(endedBeforeStart(record, lostPlan(), Date.now()));
      else if (record.status === "scheduled") void this.#proceed(this.#plan);
      return;
    }
    const { lastSeq, partial } = this.#store.scan(record.partial_merge ?? "replace");
    this.#record = record;
    this.#save(lostRecord(record, lastSeq, partial));
    this.#ended(this.#record);
    void releaseExecution(this.env, record.tenant, record.execution_id);
  }

  #view(record: ExecutionRecord, position?: number): ExecutionView {
    return toView(record, this.#store.usage(), position);
  }

  #owned(scope: ExecutionScope): boolean {
    // Another tenant's id, or another agent's for a caller that sees only its own, answers
    // exactly like an unknown one: existence does not leak.
    return this.#record !== undefined && inScope(scope, this.#record.tenant, this.#record.agent);
  }
}
