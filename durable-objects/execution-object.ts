/**
 * ExecutionObject: one Durable Object per execution. Holds the record and its event log,
 * runs the provider call (stage 6), settles it (stage 7), fans events out to SSE
 * subscribers, and handles cancellation and retention. It is the single writer of its
 * execution, so a status can never be set twice (durable-objects/execution-state.ts).
 */
import { DurableObject } from "cloudflare:workers";
import type { ExecutionView } from "../src/contract.ts";
import type { Env } from "../src/env.ts";
import { fromJson, toJson } from "../src/codec/bytes.ts";
import { loadConfig } from "../src/config.ts";
import { errorBody, RuntimeError } from "../src/errors.ts";
import { remainingBudgetMs } from "../src/pipeline/budget.ts";
import { verifyInBackground } from "../src/pipeline/intent.ts";
import { httpStatusOf, toView, type Settlement } from "../src/pipeline/delivery.ts";
import type { ExecutionPlan, ExecutionResult, PlannedProvider, Subscription } from "../src/pipeline/dispatch.ts";
import { runAttempts, type AttemptResult } from "../src/pipeline/retry.ts";
import { admit } from "../src/policy/admission.ts";
import { EMITTED_EVENT_TYPES, type EmittedEvent } from "../providers/sdk/protocol.ts";
import { EventLog } from "./event-log.ts";
import { isTerminal, transition, type ExecutionRecord } from "./execution-state.ts";
import { meteredSql, meterMethods } from "./cost-meter.ts";
import { Fanout } from "./fanout.ts";
import type { AuditMessage } from "../src/audit/messages.ts";
import { auditRecordOf, indexEntryOf } from "./execution-audit.ts";
import { newRunState, runAttempt } from "./execution-attempt.ts";

/** How long past its deadline an execution may go before the alarm ends it regardless. */
const DEADLINE_SLACK_MS = 5_000;

export class ExecutionObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private events: EventLog;
  private readonly fanout = new Fanout();
  private record: ExecutionRecord | undefined;
  private running: Promise<void> | undefined;

  /** Everything in memory that belongs to one execution; made anew when one starts. */
  private run_ = newRunState();
  /** Set while a keyed call is being admitted: duplicates wait for it. */
  private starting: Promise<void> | undefined;



  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = meteredSql(ctx.storage.sql, "ExecutionObject");
    this.events = this.setUpTables();
    const row = this.sql.exec<{ record: string }>("SELECT record FROM execution WHERE id = 1").toArray()[0];
    this.record = row ? fromJson<ExecutionRecord>(row.record) : undefined;
    // A fresh instance finding an unfinished record means the instance that ran it is gone
    // (restart; an object waiting on I/O is not evicted): its provider call went with it.
    if (this.record && !isTerminal(this.record.status)) this.finishLost();
  }

  /**
   * Stages 6 and 7. A new execution starts; a duplicate of a keyed one (or a repeated RPC)
   * attaches to it. Sync mode answers when the execution ends; async at once.
   */
  async execute(plan: ExecutionPlan): Promise<ExecutionResult> {
    const claim = await this.claim(plan);
    if (claim.kind !== "started" && claim.kind !== "replayed") return claim;
    if (plan.mode === "sync") await this.running;
    return this.result(claim.kind);
  }

  /** Starts (or attaches to) the execution and subscribes in the same turn: no event is missed. */
  async executeStream(plan: ExecutionPlan): Promise<ExecutionResult & { stream?: ReadableStream<Uint8Array> }> {
    const claim = await this.claim(plan);
    if (claim.kind !== "started" && claim.kind !== "replayed") return claim;
    return { kind: claim.kind, view: toView(this.record!), stream: this.fanout.subscribe(this.events.after(0)) };
  }

  /** The current view, for GET /v1/executions/{id}; undefined for another tenant or no record. */
  async view(tenant: string): Promise<ExecutionView | undefined> {
    return this.owned(tenant) ? toView(this.record!) : undefined;
  }

  /** SSE: the stored events after `after`, then live ones until the terminal event. */
  async subscribe(tenant: string, after: number): Promise<Subscription> {
    if (!this.owned(tenant)) return { kind: "not_found" };
    // Resuming at or past the terminal event leaves nothing to send (TRT-002 §7: exactly one).
    if (isTerminal(this.record!.status) && after >= this.events.lastSeq) return { kind: "ended" };
    const stream = this.fanout.subscribe(this.events.after(after));
    return stream ? { kind: "stream", stream } : { kind: "busy" };
  }

  /**
   * TRT-002 §8: signal the provider, give it `graceMs` to stop, then stop waiting for it.
   * Answers when the execution has ended. Idempotent: a finished execution is returned as
   * it is (with outcome `already_finished` when it did not end by cancellation).
   */
  async cancel(tenant: string, graceMs: number): Promise<ExecutionView | undefined> {
    if (!this.owned(tenant)) return undefined;
    const record = this.record!;
    const now = Date.now();
    if (isTerminal(record.status)) {
      const view = toView(record);
      return view.cancellation ? view : { ...view, cancellation: { requested_at: new Date(now).toISOString(), outcome: "already_finished" } };
    }
    if (record.cancellation) {
      await this.running; // a second cancel waits for the first
      return toView(this.record!);
    }
    const requested_at = new Date(now).toISOString();
    if (record.status !== "running") {
      this.finish({ status: "cancelled", error: errorBody("cancelled", "the execution was cancelled before it started") }, { requested_at, outcome: "before_start" });
      return toView(this.record!);
    }
    this.save({ ...record, cancellation: { requested_at, outcome: null } });
    const run = this.run_;
    run.cancelledInFlight = run.attemptInFlight;
    run.stop.fire("cancelled");
    const timer = setTimeout(() => run.abandon({ kind: "stopped", reason: "cancelled" }), graceMs);
    await this.running;
    clearTimeout(timer);
    return toView(this.record!);
  }

  async alarm(): Promise<void> {
    const record = this.record;
    if (!record) return;
    if (!isTerminal(record.status)) {
      // Past deadline + slack with the call still open: the in-memory timer did not end it.
      if (this.running) {
        this.run_.stop.fire("timeout");
        this.run_.abandon({ kind: "timeout" });
      } else {
        this.finishLost();
      }
      return;
    }
    // Records from before retention was configurable carry none: the current setting applies.
    const retention = Number.isFinite(record.retention_ms) ? record.retention_ms : loadConfig(this.env).retentionMs;
    if (Date.now() >= record.ended_at! + retention) {
      // TRT-002 §9 retention window over: the id answers 404 from now on.
      await this.ctx.storage.deleteAll();
      this.record = undefined;
      this.run_ = newRunState();
      this.events = this.setUpTables(); // deleteAll dropped the tables; a reused key needs them
    } else {
      await this.ctx.storage.setAlarm(record.ended_at! + retention);
    }
  }

  /**
   * Decides what a plan means here: a new execution, a duplicate of this one (same key and
   * request, or the same plan again), or a key reused for a different request. A keyed call
   * is admitted here, once; concurrent duplicates wait for that and then attach.
   */
  private async claim(plan: ExecutionPlan): Promise<ExecutionResult> {
    while (this.starting) await this.starting;
    const existing = this.record;
    if (existing) {
      const key = existing.idempotency;
      if (!key || !plan.idempotency) return { kind: "replayed", view: toView(existing) };
      const expired = isTerminal(existing.status) && Date.now() >= key.expires_at;
      if (!expired) {
        return key.fingerprint === plan.idempotency.fingerprint ? { kind: "replayed", view: toView(existing) } : { kind: "conflict", execution_id: existing.execution_id };
      }
      // TRT-002 §11: past its TTL the key may start a new execution (under the same id).
      await this.ctx.storage.deleteAll();
      this.record = undefined;
      this.events = this.setUpTables();
    }
    if (plan.idempotency && plan.limits) {
      let done!: () => void;
      this.starting = new Promise<void>((r) => (done = r));
      try {
        await admit(this.env, { tenant: plan.tenant, execution_id: plan.execution_id, tool: plan.tool, timeout_ms: plan.timeout_ms, limits: plan.limits });
      } catch (err) {
        // Refused before anything was written: the key stays unclaimed.
        if (err instanceof RuntimeError) return { kind: "refused", message: err.message, details: err.details ?? {} };
        throw err;
      } finally {
        this.starting = undefined;
        done();
      }
    }
    this.start(plan);
    return { kind: "started", view: toView(this.record!) };
  }

  /** A finished execution answers with its stored response, byte for byte (TRT-002 §11). */
  private result(kind: "started" | "replayed"): ExecutionResult {
    const row = this.sql.exec<{ status: number; body: string }>("SELECT status, body FROM response WHERE id = 1").toArray()[0];
    return { kind, view: toView(this.record!), ...(row ? { stored: { status: row.status, body: row.body } } : {}) };
  }

  /** Writes the record and starts the call. */
  private start(plan: ExecutionPlan): void {
    this.run_ = newRunState();
    const now = Date.now();
    const first = plan.providers[0];
    let record: ExecutionRecord = {
      execution_id: plan.execution_id,
      tenant: plan.tenant,
      agent: plan.agent,
      tool: plan.tool,
      version: plan.version,
      mode: plan.mode,
      status: "queued",
      provider: null,
      timeout_ms: plan.timeout_ms,
      idempotent: plan.idempotent,
      effects: plan.effects,
      output_hash: plan.output_hash,
      max_output_bytes: plan.max_output_bytes,
      capability: plan.capability,
      retention_ms: plan.retention_ms,
      accepted_at: plan.accepted_at,
      scheduled_at: null,
      running_at: null,
      ended_at: null,
      attempts: [],
      params_hash: plan.params_hash,
      trace_id: plan.trace.trace_id,
      correlation_id: plan.correlation_id,
      ...(plan.idempotency ? { idempotency: { key: plan.idempotency.key, fingerprint: plan.idempotency.fingerprint, expires_at: now + plan.idempotency.ttl_ms } } : {}),
    };
    record = transition(record, "scheduled", now);
    record = transition(record, "running", now, { provider: first.provider });
    // DESIGN.md 8: these writes and the alarm share one commit before the provider call, so
    // the key is durable before anything is dispatched.
    this.save(record);
    this.append("start", { sandbox: "v8-isolate", worker: first.provider }, now);
    void this.ctx.storage.setAlarm(plan.accepted_at + plan.timeout_ms + DEADLINE_SLACK_MS);
    if (plan.intent_request) this.verifyIntent(plan.intent_request);
    this.running = this.run(plan).catch((err) => this.finishBroken(err));
    this.audit({ kind: "started", entry: indexEntryOf(record) });
  }

  /**
   * Level 2 for a read-only tool, beside the provider call: never blocks it. A verdict that
   * arrives before the end is written with the end; a later one is written when it lands.
   */
  private verifyIntent(request: NonNullable<ExecutionPlan["intent_request"]>): void {
    const run = this.run_;
    run.intentPending = verifyInBackground(this.env, request).then((decision) => {
      if (run !== this.run_) return; // a later execution took this object over
      run.intentVerdict = decision;
      const record = this.record;
      if (record && isTerminal(record.status)) this.save({ ...record, capability: { ...record.capability, level2: decision } });
      if (decision.verdict === "misaligned") console.warn(JSON.stringify({ msg: "intent misaligned", execution_id: this.record?.execution_id, tool: request.tool, agent: request.agent, ...decision }));
    });
  }

  /** Sends to the audit queue without holding anything up; a failed send is logged. */
  private audit(message: AuditMessage): void {
    this.env.AUDIT_QUEUE?.send(message).catch((err) => console.error(JSON.stringify({ msg: "audit send failed", kind: message.kind, error: String(err) })));
  }

  /**
   * AIOS §5.7 steps 4-5: one audit record per execution, once it has ended and its
   * background intent verdict (if any) is in, so the record holds every decision.
   */
  private async auditEnd(): Promise<void> {
    await this.run_.intentPending;
    const r = this.record;
    if (!r || !isTerminal(r.status)) return;
    const record = auditRecordOf(r);
    // One structured line per execution, joinable with the caller's logs by correlation id.
    console.log(JSON.stringify({ msg: "execution", ...record, attempts: record.attempts.length, capability: undefined }));
    this.audit({ kind: "finished", record });
  }

  /** Attempts (one, or more for idempotent tools), then the terminal state. */
  private async run(plan: ExecutionPlan): Promise<void> {
    const last = await runAttempts({
      providers: plan.providers,
      idempotent: plan.idempotent,
      policy: plan.retry,
      acceptedAt: plan.accepted_at,
      remainingMs: () => remainingBudgetMs(plan.timeout_ms, plan.accepted_at, Date.now()),
      attemptCapMs: plan.attempt_cap_ms,
      attempt: (provider, timeoutMs, n) => this.attempt(plan, provider, timeoutMs, n),
      stopped: () => this.record?.cancellation !== undefined,
      onRetry: (r) =>
        this.append("log", { message: `attempt ${r.attempt} on ${r.provider} ended ${r.code}; retrying on ${r.next_provider} in ${r.delay_ms} ms`, ...r }, Date.now()),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      now: Date.now,
    });
    const record = this.record;
    if (!record || isTerminal(record.status)) return;
    this.run_.attemptsDone = { attempts: last.attempts, provider: last.provider.provider };
    if (record.cancellation) {
      // Whatever the provider did after the stop notice, the caller asked to cancel.
      // Forced only if a provider was running when the cancel came and had to be abandoned;
      // a cancel during a retry's backoff stopped nothing that was running.
      const forced = this.run_.cancelledInFlight && (last.outcome.kind === "stopped" || last.outcome.kind === "timeout");
      const message = forced ? "the execution was cancelled; the provider did not stop within the grace period" : "the execution was cancelled";
      this.finish({ status: "cancelled", error: errorBody("cancelled", message) }, { requested_at: record.cancellation.requested_at, outcome: forced ? "forced" : "cooperative" });
      return;
    }
    this.finish(last.settlement);
  }

  /** One provider call, settled, with its outcome reported for the provider's health. */
  private attempt(plan: ExecutionPlan, provider: PlannedProvider, timeoutMs: number, n: number): Promise<AttemptResult> {
    return runAttempt({ env: this.env, run: this.run_, record: () => this.record!, onEmit: (e) => this.onEmit(e) }, plan, provider, timeoutMs, n);
  }

  private onEmit(event: EmittedEvent): void {
    // After the end (a handler that ignored cancellation, say) its events are refused.
    if (!this.record || isTerminal(this.record.status)) throw new Error("the execution has ended");
    if (!EMITTED_EVENT_TYPES.includes(event?.type)) throw new Error(`unknown event type ${String(event?.type)}`);
    this.append(event.type, event.data, Date.now());
  }

  private append(type: string, data: unknown, at: number): void {
    const stored = this.events.append(type, data, at);
    if (stored) this.fanout.publish(stored);
  }

  private finish(settlement: Settlement, cancellation?: ExecutionRecord["cancellation"]): void {
    const now = Date.now();
    const partial = this.events.lastData("partial");
    const current = this.record!;
    const { attemptsDone, intentVerdict } = this.run_;
    const record = transition({ ...current, ...attemptsDone, ...(intentVerdict ? { capability: { ...current.capability, level2: intentVerdict } } : {}) }, settlement.status, now, {
      output: settlement.output,
      error: settlement.error,
      ...(partial !== undefined ? { partial_output: partial } : {}),
      ...(cancellation ? { cancellation } : {}),
    });
    this.save(record);
    const view = toView(record);
    // The response every later replay of this execution gets, byte for byte (TRT-002 §11).
    this.sql.exec("INSERT INTO response (id, status, body) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET status = excluded.status, body = excluded.body", httpStatusOf(view), toJson(view));
    if (record.status === "succeeded") this.append("done", { output: view.output, execution: view.execution }, now);
    else this.append("error", { status: view.status, error: view.error, partial_output: view.partial_output, cancellation: view.cancellation, execution: view.execution }, now);
    // The deadline alarm is replaced by the end of the retention window.
    void this.ctx.storage.setAlarm(now + record.retention_ms);
    // The tenant's concurrency slot is free (its lease would expire anyway at the deadline).
    this.env.TENANTS.get(this.env.TENANTS.idFromName(record.tenant)).release(record.execution_id).catch(() => {});
    void this.auditEnd();
  }

  /** Whatever went wrong inside, the execution still ends, once (never `running` forever). */
  private finishBroken(err: unknown): void {
    console.error(JSON.stringify({ msg: "execution failed inside the runtime", execution_id: this.record?.execution_id, error: String(err) }));
    if (!this.record || isTerminal(this.record.status)) return;
    try {
      this.finish({ status: "failed", error: errorBody("internal", "the runtime failed while running the execution", { reason: String(err).slice(0, 300) }, false) });
    } catch (again) {
      console.error(JSON.stringify({ msg: "could not record the failure", execution_id: this.record?.execution_id, error: String(again) }));
    }
  }

  private finishLost(): void {
    this.finish({
      status: "failed",
      error: errorBody("internal", "the execution was interrupted by a restart of the runtime; the provider's outcome is unknown", {
        reason: "execution object restarted",
      }, false),
    });
  }

  private setUpTables(): EventLog {
    this.sql.exec("CREATE TABLE IF NOT EXISTS execution (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL)");
    this.sql.exec("CREATE TABLE IF NOT EXISTS response (id INTEGER PRIMARY KEY CHECK (id = 1), status INTEGER NOT NULL, body TEXT NOT NULL)");
    return new EventLog(this.sql);
  }

  private owned(tenant: string): boolean {
    // Another tenant's id answers exactly like an unknown one (DESIGN.md 7).
    return this.record !== undefined && this.record.tenant === tenant;
  }

  /** Writes first, then adopts: memory never claims a state that storage does not hold. */
  private save(record: ExecutionRecord): void {
    this.sql.exec("INSERT INTO execution (id, record) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record", toJson(record));
    this.record = record;
  }
}

meterMethods(ExecutionObject, ["execute", "executeStream", "view", "subscribe", "cancel", "alarm"]);
