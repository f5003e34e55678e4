/**
 * ExecutionObject: one Durable Object per execution that can be watched (async, streamed or
 * keyed) or that waits (docs/contract.md#waiting). A shell over src/execution/lifecycle.ts, the
 * pure lifecycle (approval → the tenant's queue → the provider's gate → the run → the end → the
 * audit outbox → retention): each RPC call, answer of another object, end of the run and alarm is
 * an event; the object carries out the effects `step` gives back (execution-effects.ts) against
 * its storage (execution-store.ts), the tenant's object, the provider's gate, the fan-out of its
 * events and the run (src/execution/run.ts). Its one alarm is due when the lifecycle says
 * (src/execution/lifecycle-alarm.ts). A keyed call's rules: src/execution/keyed-start.ts.
 */
import { DurableObject } from "cloudflare:workers";
import type { ApprovalDecision, ExecutionEvent, ExecutionView, Outcome } from "../src/contract.ts";
import { permitOf } from "../src/execution/provider-claim.ts";
import type { ExecutionPlan } from "../src/execution/execution-plan.ts";
import { withRecordEvents } from "../src/execution/events.ts";
import { isTerminal, isWaiting, toView, type ExecutionRecord } from "../src/execution/record.ts";
import type { ExecutionRun } from "../src/execution/run.ts";
import { Fanout } from "../src/stream/fanout.ts";
import { encodeEventLine } from "../src/stream/ndjson.ts";
import { ExecutionStore } from "./execution-store.ts";
import type {
  Delivery,
  EventsAnswer,
  ExecutionObjectRpc,
  KeyedCall,
  StartAnswer,
  StreamsAnswer,
} from "../src/execution/object-rpc.ts";
import { inScope, type ExecutionScope } from "../src/auth/roles.ts";
import { KeyUses } from "../src/execution/keyed-start.ts";
import { lookPosition, PositionWatch } from "../src/execution/position-watch.ts";
import { refusal, subscribersFull } from "../src/execution/object-answers.ts";
import { step } from "../src/execution/lifecycle.ts";
import type { Asker, Lifecycle, LifecycleEvent, Settled } from "../src/execution/lifecycle-types.ts";
import { carry, type EffectHost } from "./execution-effects.ts";
import { startKeyed } from "./keyed-call.ts";

export class ExecutionObject extends DurableObject<Env> implements ExecutionObjectRpc {
  readonly #store: ExecutionStore;
  readonly #fanout = new Fanout(encodeEventLine, (after, upTo, limit) => this.#logPage(after, upTo, limit));
  /** The lifecycle's state (src/execution/lifecycle-types.ts): the record, the plan while it waits, what is under way. */
  #life: Lifecycle = {};
  #loaded = false;
  /** Its place in the line it waits in. */
  readonly #line = new PositionWatch({
    watched: () => {
      const record = this.#life.record;
      return record && { record, subscribers: this.#fanout.size, running: !!this.#life.run };
    },
    look: (record) => lookPosition(this.env, record, this.#life.plan),
    tell: (status, position) =>
      void this.#on({ type: "told position", data: { message: `position ${position}`, waiting: status, position } }),
  });
  /** The keyed call being planned and admitted: duplicates wait for it. */
  readonly #keyUses = new KeyUses();
  readonly #host: EffectHost;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new ExecutionStore(ctx.storage.kv);
    this.#host = {
      env,
      ctx,
      store: this.#store,
      fanout: this.#fanout,
      line: this.#line,
      enders: [],
      settles: new Map(),
      run: undefined,
      on: (event) => this.#on(event),
    };
  }

  /** Starts a planned execution here (unkeyed: planned at the edge). */
  async start(plan: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    this.#recover();
    const record = this.#life.record;
    if (record) return this.#attach(record.tenant === plan.tenant, delivery, true);
    return this.#begin(plan, delivery);
  }

  /** A keyed call (docs/contract.md#idempotency): keyed-call.ts. */
  async startKeyed(call: KeyedCall, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    this.#recover();
    return startKeyed(
      {
        env: this.env,
        objectId: this.ctx.id.toString(),
        store: this.#store,
        uses: this.#keyUses,
        own: () => this.#life.record,
        begin: (plan, d) => this.#begin(plan, d),
        attach: (owned, d, replayed) => this.#attach(owned, d, replayed),
      },
      call,
      delivery,
    );
  }

  /** A keyed call forwarded by the key's first object: the execution this object runs for that key. */
  async attach(tenant: string, delivery: Delivery, replayed = true): Promise<Outcome<StartAnswer>> {
    this.#recover();
    return this.#attach(this.#life.record?.tenant === tenant, delivery, replayed);
  }

  /** The current view for GET (with its place in line while it waits); null outside the caller's scope or no record. */
  async view(scope: ExecutionScope): Promise<ExecutionView | null> {
    this.#recover();
    if (!this.#owned(scope)) return null;
    const status = this.#life.record!.status;
    if (status === "queued" || status === "scheduled") await this.#line.look(this.#life.record!);
    return this.#view(this.#life.record!, this.#line.position);
  }

  /** The events after `after`, then live ones until the terminal event (docs/contract.md#streaming). */
  async events(scope: ExecutionScope, after: number): Promise<Outcome<EventsAnswer>> {
    this.#recover();
    if (!this.#owned(scope)) return refusal("execution_not_found", "no such execution");
    const record = this.#life.record!;
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
    const record = this.#life.record!;
    if (isTerminal(record.status)) {
      const view = this.#view(record);
      return view.cancellation
        ? view
        : { ...view, cancellation: { requested_at: new Date().toISOString(), outcome: "already_finished" } };
    }
    const { effects } = this.#on({ type: "cancel", graceMs });
    const run = this.#host.run;
    if (!run || !effects.some((e) => e.kind === "cancel run")) return this.#view(this.#life.record!);
    return this.#view(await run.cancel(graceMs));
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
    const settled = await this.#ask("decide", { type: "decided", decision, selfApproval });
    if (!settled.ok) return { ok: false, error: settled.error };
    return { ok: true, value: this.#view(this.#life.record!, this.#line.position) };
  }

  /** The tenant's object handed this queued execution a slot: it goes on (true), or gives it back (false). */
  async granted(): Promise<boolean> {
    this.#recover();
    return this.#reply(this.#on({ type: "slot granted" }));
  }

  /** The provider's gate handed this scheduled execution a permit: it runs (true), or gives it back (false). */
  async capacityGranted(provider: string, permitId: string): Promise<boolean> {
    this.#recover();
    return this.#reply(this.#on({ type: "permit granted", permit: permitOf(this.env, provider, permitId) }));
  }

  /** One alarm: the end of a wait, the deadline, the audit outbox, retention. */
  async alarm(): Promise<void> {
    this.#recover();
    await this.#on({ type: "alarm" }).done;
  }

  /** Steps the lifecycle and carries out its effects, in order (`done`: when the ones that take time have). */
  #on(event: LifecycleEvent) {
    const { state, effects } = step(this.#life, event, Date.now());
    // Adopted before the effects run: an effect may bring an event of its own (the run saving its record).
    this.#life = state;
    const pending = effects.map((e) => carry(this.#host, e));
    return { effects, done: Promise.all(pending).then(() => {}) };
  }

  /** Steps the lifecycle, then waits for its asker's chain of requests to settle (refused at once: that). */
  async #ask(asker: Asker, event: LifecycleEvent): Promise<Settled> {
    let resolve!: (s: Settled) => void;
    const settled = new Promise<Settled>((r) => (resolve = r));
    const settles = this.#host.settles;
    settles.set(asker, [...(settles.get(asker) ?? []), resolve]);
    const refused = this.#on(event).effects.find((e) => e.kind === "refuse");
    if (!refused) return settled;
    settles.set(
      asker,
      settles.get(asker)!.filter((r) => r !== resolve),
    );
    return { ok: false, error: refused.error };
  }

  #reply({ effects }: { effects: { kind: string; value?: unknown }[] }): boolean {
    return effects.find((e) => e.kind === "reply")?.value === true;
  }

  async #begin(plan: ExecutionPlan, delivery: Delivery): Promise<Outcome<StartAnswer>> {
    const settled = await this.#ask("start", { type: "start", plan });
    if (!settled.ok) {
      if ("thrown" in settled) throw settled.thrown;
      return { ok: false, error: settled.error };
    }
    return this.#attach(true, delivery, false);
  }

  async #attach(owned: boolean, delivery: Delivery, replayed: boolean): Promise<Outcome<StartAnswer>> {
    if (!owned) return refusal("execution_not_found", "no such execution");
    const stream = delivery === "stream" ? this.#subscribe(0) : undefined;
    if (delivery === "stream" && !stream) return subscribersFull();
    if (delivery === "end" && !isTerminal(this.#life.record!.status)) {
      await new Promise<ExecutionRecord>((resolve) => this.#host.enders.push(resolve));
    }
    // The answer to a POST is the record as it ended, the same for its replays (docs/contract.md#idempotency);
    // CPU reports arrive after the end and show in GET (src/execution/usage.ts).
    return {
      ok: true,
      value: { view: toView(this.#life.record!, [], this.#line.position), replayed, ...(stream ? { stream } : {}) },
    };
  }

  #subscribe(after: number): ReadableStream<Uint8Array> | undefined {
    const record = this.#life.record!;
    const run: ExecutionRun | undefined = this.#host.run;
    const upTo = run ? run.lastSeq : isTerminal(record.status) ? record.last_seq + 1 : record.last_seq;
    const stream = this.#fanout.subscribe(after, upTo, isTerminal(record.status));
    if (stream && isWaiting(record.status)) this.#line.watch();
    return stream;
  }

  /** A page of the event log for the fan-out: stored events, with the record's own (start, terminal) where they fall. */
  #logPage(after: number, upTo: number, limit: number): ExecutionEvent[] {
    const record = this.#life.record;
    if (!record) return [];
    const stored = this.#store.events(after, limit).filter((e) => e.seq <= upTo);
    const high = stored.length < limit ? upTo : stored.at(-1)!.seq;
    return withRecordEvents(record, stored, after).filter((e) => e.seq <= high);
  }

  /** Loads the record on a new instance's first call; the lifecycle decides what a restart means (`restarted`). */
  #recover(): void {
    if (this.#loaded) return;
    this.#loaded = true;
    const record = this.#store.record();
    if (!record) return;
    const waiting = isWaiting(record.status);
    const lost = !waiting && !isTerminal(record.status);
    this.#on({
      type: "restarted",
      record,
      ...(waiting ? { plan: this.#store.plan() } : {}),
      ...(lost ? { lost: this.#store.scan(record.partial_merge ?? "replace") } : {}),
    });
  }

  #view(record: ExecutionRecord, position?: number): ExecutionView {
    return toView(record, this.#store.usage(), position);
  }

  #owned(scope: ExecutionScope): boolean {
    // Another tenant's id, or another agent's for a caller that sees only its own, answers
    // exactly like an unknown one: existence does not leak.
    const record = this.#life.record;
    return record !== undefined && inScope(scope, record.tenant, record.agent);
  }
}
