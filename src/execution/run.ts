/**
 * One execution, running: stages 6 and 7 around the retry engine. Owns what lives only while
 * the execution runs — the current attempt's stop latch, the forced-cancel escape, whether a
 * provider call is in flight, the merged partial output and the event counters — and moves the
 * record through its states. Plain code: the edge runs it for the fast path (nobody can watch
 * those calls), an ExecutionObject runs it for calls that can be watched; each passes a host
 * that keeps the record and the events where that place keeps them.
 */
import type { AttemptRecord, CancellationOutcome, Value } from "../contract.ts";
import { PartialOutput, PartialShapeError } from "./partial-output.ts";
import { errorBody } from "../errors.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { remainingBudgetMs } from "../pipeline/budget.ts";
import { EMITTED_EVENT_TYPES, type EmittedEvent } from "../../providers/sdk/protocol.ts";
import { toJson } from "../codec/bytes.ts";
import { runAttempt } from "./attempt.ts";
import { StopLatch, type ProviderOutcome } from "./provider-call.ts";
import { isTerminal, transition, type ExecutionRecord } from "./record.ts";
import { runAttempts } from "./retry.ts";
import type { Settlement } from "./settle.ts";
import { acquirePermit, type Permit } from "./provider-claim.ts";

/** Where the run keeps what it produces. */
export interface RunHost {
  /** Keeps work that outlives a step alive (a request's waitUntil, or an object's). */
  background: (p: Promise<unknown>) => void;
  /** The record changed (started, or ended): keep it. */
  save(record: ExecutionRecord): void;
  /** An emitted event (already numbered): keep it and hand it to whoever listens. */
  emit(seq: number, type: string, data: unknown, at: number): void;
}

import { MAX_EVENT_BYTES, MAX_EVENTS, MAX_LOG_BYTES } from "./event-log-limits.ts";
export { MAX_EVENT_BYTES, MAX_EVENTS, MAX_LOG_BYTES };
/**
 * The longest a tenant's slot stays held for a provider call after its execution has ended:
 * a handler that ignores cancellation still counts against its tenant until then. The
 * platform ends any invocation that exceeds its CPU limit (providers declare `limits.cpu_ms`).
 */
export const WORK_CAP_MS = 60_000;

export class ExecutionRun {
  #record: ExecutionRecord;
  readonly #plan: ExecutionPlan;
  readonly #env: Env;
  readonly #host: RunHost;
  #stop = new StopLatch();
  #abandon!: (outcome: ProviderOutcome) => void;
  readonly #abandoned: Promise<ProviderOutcome>;
  #attemptInFlight = false;
  #cancelledInFlight = false;
  #seq: number;
  #emitted = 0;
  #logBytes = 0;
  #dropped = 0;
  readonly #partial: PartialOutput;
  /** The provider calls made, each until its own call returned (which may be after the end). */
  readonly #dispatched: Promise<unknown>[] = [];
  /** The first attempt's permit at a provider with a limit (docs/contract.md#waiting), taken before the run began. */
  #firstPermit: Permit | null;
  /**
   * When the budget starts (docs/contract.md#budgets): acceptance for a sync call, whose caller has been
   * waiting all along; the start of the run for an async one, whose wait was nobody's time
   * (docs/contract.md#waiting: a queued async call keeps its whole budget for running).
   */
  readonly budgetFrom: number;
  /** Resolves with the terminal record, whatever happens inside. */
  readonly done: Promise<ExecutionRecord>;

  private constructor(env: Env, plan: ExecutionPlan, host: RunHost, record: ExecutionRecord, permit: Permit | null) {
    this.#env = env;
    this.#plan = plan;
    this.#host = host;
    this.#record = record;
    this.#firstPermit = permit;
    this.budgetFrom = plan.mode === "async" ? record.running_at! : plan.accepted_at;
    this.#seq = record.last_seq;
    this.#partial = new PartialOutput(plan.partial_merge);
    this.#abandoned = new Promise((resolve) => (this.#abandon = resolve));
    this.done = this.#run().catch((err) => this.#finishBroken(err));
  }

  /**
   * Writes the record as running (one save before the provider is called) and starts the
   * attempts. `record`: one that has been waiting (queued or scheduled, docs/contract.md#waiting), moved on
   * from where it stands; otherwise a new one goes queued → scheduled → running at once.
   * `permit`: the first provider's, when it has a limit (src/execution/provider-claim.ts).
   */
  static begin(
    env: Env,
    plan: ExecutionPlan,
    host: RunHost,
    o: { record?: ExecutionRecord; permit?: Permit | null; now?: number } = {},
  ): ExecutionRun {
    const now = o.now ?? Date.now();
    let record = o.record ?? newRecord(plan, now);
    if (record.status === "queued") record = transition(record, "scheduled", now);
    record = transition(record, "running", now, {
      provider: plan.providers[0].provider,
      start_seq: record.last_seq + 1,
      last_seq: record.last_seq + 1,
    });
    host.save(record);
    return new ExecutionRun(env, plan, host, record, o.permit ?? null);
  }

  /** When the budget runs out (the deadline alarm backs the in-memory timer up). */
  get deadline(): number {
    return this.budgetFrom + this.#plan.timeout_ms;
  }

  get record(): ExecutionRecord {
    return this.#record;
  }

  /** The newest event number given out so far (the record holds it only from the end). */
  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * docs/contract.md#cancellation: signal the provider, give it `graceMs` to stop, then stop waiting for it.
   * Resolves with the terminal record. A second cancel waits for the first.
   */
  async cancel(graceMs: number, now = Date.now()): Promise<ExecutionRecord> {
    const record = this.#record;
    if (isTerminal(record.status) || record.cancellation) return this.done;
    this.#record = { ...record, cancellation: { requested_at: new Date(now).toISOString(), outcome: null } };
    this.#cancelledInFlight = this.#attemptInFlight;
    this.#stop.fire("cancelled");
    const timer = setTimeout(() => this.#abandon({ kind: "stopped", reason: "cancelled" }), graceMs);
    try {
      return await this.done;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Resolves when the work has really stopped: the run has ended and every provider call it
   * made has returned — a handler that ignores its stop notice keeps running in its Worker —
   * or WORK_CAP_MS after the end, whichever is first. What the tenant's concurrency slot is
   * held until (docs/contract.md#cancellation: a forced cancel does not free it early).
   */
  async workStopped(): Promise<void> {
    await this.done;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, WORK_CAP_MS)));
    await Promise.race([Promise.allSettled(this.#dispatched), cap]);
    if (timer !== undefined) clearTimeout(timer);
  }

  /** The deadline passed with the call still open (the in-memory timer is gone): end it as timed out. */
  expire(): void {
    this.#stop.fire("timeout");
    this.#abandon({ kind: "timeout" });
  }

  async #run(): Promise<ExecutionRecord> {
    const plan = this.#plan;
    const last = await runAttempts({
      providers: plan.providers,
      idempotent: plan.idempotent,
      policy: plan.retry,
      acceptedAt: plan.accepted_at,
      remainingMs: () => remainingBudgetMs(plan.timeout_ms, this.budgetFrom, Date.now()),
      attemptCapMs: plan.attempt_cap_ms,
      attempt: async (provider, timeoutMs, n) => {
        const permit = n === 1 ? this.#firstPermit : await this.#retryPermit(provider, n);
        if (permit === undefined) {
          this.#append("log", {
            message: `the retry on ${provider.provider} was not made: it is at its max_concurrency`,
            provider: provider.provider,
            attempt: n,
          });
          return undefined;
        }
        const stop = new StopLatch();
        this.#stop = stop;
        if (this.#record.cancellation) stop.fire("cancelled");
        this.#attemptInFlight = true;
        const calls: Promise<unknown>[] = [];
        try {
          return await runAttempt({
            env: this.#env,
            plan,
            provider,
            timeoutMs,
            n,
            stop,
            abandoned: this.#abandoned,
            onEmit: (e) => this.#onEmit(e),
            cancelled: () => this.#record.cancellation !== undefined,
            onDispatched: (returned) => {
              this.#dispatched.push(returned);
              calls.push(returned);
            },
            background: this.#host.background,
          });
        } finally {
          this.#attemptInFlight = false;
          if (permit) this.#releaseWhenReturned(permit, calls);
        }
      },
      stopped: () => this.#record.cancellation !== undefined,
      onRetry: (r) =>
        this.#append("log", {
          message: `attempt ${r.attempt} on ${r.provider} ended ${r.code}; retrying on ${r.next_provider} in ${r.delay_ms} ms`,
          ...r,
        }),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      random: Math.random,
      now: Date.now,
    });
    const { attempts } = last;
    const provider = last.provider.provider;
    const cancellation = this.#record.cancellation;
    if (cancellation) {
      // Whatever the provider did after the stop notice, the caller asked to cancel. Forced
      // only if a provider was running when the cancel came and had to be abandoned; a cancel
      // during a retry's backoff stopped nothing that was running. A value the handler still
      // returned is kept as partial output (docs/contract.md#partial-output).
      const forced = this.#cancelledInFlight && (last.outcome.kind === "stopped" || last.outcome.kind === "timeout");
      if (last.outcome.kind === "result" && last.outcome.result.ok) this.#mergePartial(last.outcome.result.output);
      const message = forced
        ? "the execution was cancelled; the provider did not stop within the grace period"
        : "the execution was cancelled";
      // Expected, not a fault: said once, as a line of its own (docs/contract.md#cancellation), never as an uncaught error.
      if (forced)
        console.log(
          JSON.stringify({
            msg: "cancel forced: the provider did not stop within the grace period",
            execution_id: this.#record.execution_id,
            tool: this.#record.tool,
            provider,
          }),
        );
      return this.#finish(
        { status: "cancelled", error: errorBody("cancelled", message) },
        { attempts, provider },
        forced ? "forced" : "cooperative",
      );
    }
    return this.#finish(last.settlement, { attempts, provider });
  }

  /** A retry's permit, taken without waiting (the run is already running); undefined: full. */
  async #retryPermit(provider: ExecutionPlan["providers"][number], n: number): Promise<Permit | null | undefined> {
    try {
      const got = await acquirePermit(this.#env, provider, {
        execution_id: this.#plan.execution_id,
        tenant: this.#plan.tenant,
        permit_id: `${this.#plan.execution_id}:${n}`,
        timeout_ms: this.#plan.timeout_ms,
        wait: false,
      });
      return got.ok ? got.permit : undefined;
    } catch (err) {
      console.warn(
        JSON.stringify({
          msg: "provider gate unreachable; no retry there",
          provider: provider.provider,
          error: String(err),
        }),
      );
      return undefined;
    }
  }

  /** A permit goes back when its provider call has really returned (WORK_CAP_MS after the end at most), or at once when none was made. */
  #releaseWhenReturned(permit: Permit, calls: Promise<unknown>[]): void {
    if (calls.length === 0) return permit.release();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let returned = false;
    const all = Promise.allSettled(calls).then(() => void (returned = true));
    const cap = this.done.then(() =>
      returned ? undefined : new Promise<void>((resolve) => (timer = setTimeout(resolve, WORK_CAP_MS))),
    );
    this.#host.background(
      Promise.race([all, cap]).then(() => {
        if (timer !== undefined) clearTimeout(timer);
        permit.release();
      }),
    );
  }

  #onEmit(event: EmittedEvent): void {
    if (!EMITTED_EVENT_TYPES.includes(event?.type)) throw new Error(`unknown event type ${String(event?.type)}`);
    // After the end (a handler that ignored cancellation, say) its events are dropped.
    if (isTerminal(this.#record.status)) return;
    this.#append(event.type, event.data);
  }

  /** Numbers, bounds and hands on one event; past the log's bounds events are dropped and counted, once said in a `log` event. */
  #append(type: string, data: unknown): void {
    const text = toJson(data ?? null);
    const full = this.#emitted >= MAX_EVENTS - 1 || this.#logBytes + text.length > MAX_LOG_BYTES;
    if (full || text.length > MAX_EVENT_BYTES) {
      if (this.#dropped++ === 0 && full)
        this.#store("log", {
          message: "the event log is full; later events are dropped (the terminal event counts them)",
          truncated: true,
        });
      return;
    }
    this.#logBytes += text.length;
    if (type === "partial") {
      try {
        this.#partial.add(data);
      } catch (err) {
        if (err instanceof PartialShapeError) throw new Error(`partial event refused: ${err.message}`);
        throw err;
      }
    }
    this.#store(type, data);
  }

  #store(type: string, data: unknown): void {
    this.#emitted++;
    this.#host.emit(++this.#seq, type, data, Date.now());
  }

  #mergePartial(data: unknown): void {
    try {
      this.#partial.add(data);
    } catch {
      // A returned value that does not fit the tool's merge rule replaces nothing.
    }
  }

  #finish(
    settlement: Settlement,
    done: { attempts: AttemptRecord[]; provider: string },
    outcome?: CancellationOutcome,
  ): ExecutionRecord {
    const now = Date.now();
    const current = this.#record;
    if (isTerminal(current.status)) return current;
    const record = transition(current, settlement.status, now, {
      output: settlement.output,
      error: settlement.error,
      attempts: done.attempts,
      provider: done.provider,
      last_seq: this.#seq,
      ...(this.#partial.value() !== undefined ? { partial_output: this.#partial.value() as Value } : {}),
      ...(outcome && current.cancellation
        ? { cancellation: { requested_at: current.cancellation.requested_at, outcome } }
        : {}),
    });
    this.#record = this.#dropped > 0 ? { ...record, dropped_events: this.#dropped } : record;
    this.#host.save(this.#record);
    return this.#record;
  }

  /** Whatever went wrong inside, the execution still ends, once (never `running` forever). */
  #finishBroken(err: unknown): ExecutionRecord {
    console.error(
      JSON.stringify({
        msg: "execution failed inside the runtime",
        execution_id: this.#record.execution_id,
        error: String(err),
      }),
    );
    if (isTerminal(this.#record.status)) return this.#record;
    return this.#finish(
      {
        status: "failed",
        error: errorBody(
          "internal",
          "the runtime failed while running the execution",
          { reason: String(err).slice(0, 300) },
          false,
        ),
      },
      { attempts: this.#record.attempts, provider: this.#record.provider ?? this.#plan.providers[0].provider },
    );
  }
}

/** The record of a plan just accepted (status `queued`). */
export function newRecord(plan: ExecutionPlan, now: number): ExecutionRecord {
  return {
    execution_id: plan.execution_id,
    tenant: plan.tenant,
    agent: plan.agent,
    project: plan.project,
    face: plan.face,
    tool: plan.tool,
    version: plan.version,
    mode: plan.mode,
    status: "queued",
    provider: null,
    timeout_ms: plan.timeout_ms,
    idempotent: plan.idempotent,
    effects: plan.effects,
    capability: plan.capability,
    partial_merge: plan.partial_merge,
    retention_ms: plan.retention_ms,
    accepted_at: plan.accepted_at,
    scheduled_at: null,
    running_at: null,
    ended_at: null,
    attempts: [],
    start_seq: null,
    last_seq: 0,
    params_hash: plan.params_hash,
    trace_id: plan.trace.trace_id,
    correlation_id: plan.correlation_id,
    ...(plan.idempotency
      ? {
          idempotency: {
            key: plan.idempotency.key,
            fingerprint: plan.idempotency.fingerprint,
            expires_at: now + plan.idempotency.ttl_ms,
          },
        }
      : {}),
  };
}

/** Ends a record whose run is gone (its object restarted mid-call): the provider's outcome is unknown. */
export function lostRecord(
  record: ExecutionRecord,
  lastSeq: number,
  partial: Value,
  now = Date.now(),
): ExecutionRecord {
  return transition(record, "failed", now, {
    last_seq: Math.max(record.last_seq, lastSeq),
    ...(partial !== undefined ? { partial_output: partial } : {}),
    error: errorBody(
      "internal",
      "the execution was interrupted by a restart of the runtime; the provider's outcome is unknown",
      { reason: "execution object restarted" },
      false,
    ),
  });
}
