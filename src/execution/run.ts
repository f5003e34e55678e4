/**
 * One execution, running: stages 6 and 7 around the retry engine. Owns what lives only while
 * the execution runs — the current attempt's stop latch, the forced-cancel escape, whether a
 * provider call is in flight, the event log with the merged partial output (src/execution/run-events.ts)
 * — and moves the record through its states. Plain code: the edge runs it for the fast path
 * (nobody can watch those calls), an ExecutionObject runs it for calls that can be watched; each
 * passes a host that keeps the record and the events where that place keeps them.
 */
import type { AttemptRecord, CancellationOutcome, Value } from "../contract.ts";
import { errorBody } from "../errors.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { remainingBudgetMs } from "../pipeline/budget.ts";
import { EMITTED_EVENT_TYPES, type EmittedEvent } from "../../providers/sdk/protocol.ts";
import { runAttempt } from "./attempt.ts";
import { StopLatch, type ProviderOutcome } from "./provider-call.ts";
import { isTerminal, transition, type ExecutionRecord } from "./record.ts";
import { runAttempts } from "./retry.ts";
import type { Settlement } from "./settle.ts";
import type { Permit } from "./provider-claim.ts";
import type { RelayService } from "./provider-relay.ts";
import { cancelledEnd } from "./run-cancel.ts";
import { RunEvents } from "./run-events.ts";
import { releaseWhenReturned, retryPermit, WORK_CAP_MS } from "./run-permits.ts";
import { newRecord } from "./run-records.ts";

/** Where the run keeps what it produces. */
export interface RunHost {
  /** Keeps work that outlives a step alive (a request's waitUntil, or an object's). */
  background: (p: Promise<unknown>) => void;
  /** The record changed (started, or ended): keep it. */
  save(record: ExecutionRecord): void;
  /** An emitted event (already numbered): keep it and hand it to whoever listens. */
  emit(seq: number, type: string, data: unknown, at: number): void;
  /** Where provider calls go through a relay a forced cancel can end (src/execution/provider-relay.ts). */
  relay?: RelayService;
}

export { MAX_EVENT_BYTES, MAX_EVENTS, MAX_LOG_BYTES } from "./event-log-limits.ts";
export { WORK_CAP_MS } from "./run-permits.ts";
export { lostRecord, newRecord } from "./run-records.ts";

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
  readonly #events: RunEvents;
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
    this.#events = new RunEvents(host, record.last_seq, plan.partial_merge);
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
    return this.#events.lastSeq;
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
   * made has returned — a handler that ignores a timeout keeps running in its Worker — or
   * WORK_CAP_MS after the end, whichever is first. What the tenant's concurrency slot is held
   * until. A forced cancel ends the provider's invocation through the relay
   * (src/execution/provider-relay.ts), whose call then returns at once (docs/contract.md#cancellation).
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
        const permit = n === 1 ? this.#firstPermit : await retryPermit(this.#env, plan, provider, n);
        if (permit === undefined) {
          this.#events.append("log", {
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
            relay: this.#host.relay,
          });
        } finally {
          this.#attemptInFlight = false;
          if (permit) releaseWhenReturned(permit, calls, this.done, (p) => this.#host.background(p));
        }
      },
      stopped: () => this.#record.cancellation !== undefined,
      onRetry: (r) =>
        this.#events.append("log", {
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
      // A value the handler still returned is kept as partial output (docs/contract.md#partial-output).
      if (last.outcome.kind === "result" && last.outcome.result.ok)
        this.#events.mergeReturned(last.outcome.result.output);
      const end = cancelledEnd(last.outcome, this.#cancelledInFlight, {
        execution_id: this.#record.execution_id,
        tool: this.#record.tool,
        provider,
      });
      return this.#finish(end.settlement, { attempts, provider }, end.outcome);
    }
    return this.#finish(last.settlement, { attempts, provider });
  }

  #onEmit(event: EmittedEvent): void {
    if (!EMITTED_EVENT_TYPES.includes(event?.type)) throw new Error(`unknown event type ${String(event?.type)}`);
    // After the end (a handler that ignored cancellation, say) its events are dropped.
    if (isTerminal(this.#record.status)) return;
    this.#events.append(event.type, event.data);
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
      last_seq: this.#events.lastSeq,
      ...(this.#events.partial() !== undefined ? { partial_output: this.#events.partial() as Value } : {}),
      ...(outcome && current.cancellation
        ? { cancellation: { requested_at: current.cancellation.requested_at, outcome } }
        : {}),
    });
    this.#record = this.#events.dropped > 0 ? { ...record, dropped_events: this.#events.dropped } : record;
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
