/**
 * ExecutionObject: one Durable Object per execution. Holds the record and its event log,
 * runs the provider call (stage 6) and settles it (stage 7). The object is the single writer
 * of its execution, so a status can never be set twice (durable-objects/execution-state.ts).
 */
import { DurableObject, RpcTarget } from "cloudflare:workers";
import type { ExecutionView } from "../src/contract.ts";
import type { Env, ProviderService } from "../src/env.ts";
import { errorBody } from "../src/errors.ts";
import { remainingBudgetMs } from "../src/pipeline/budget.ts";
import { settle, toView, type Settlement } from "../src/pipeline/delivery.ts";
import type { ExecutionPlan } from "../src/pipeline/dispatch.ts";
import { invokeProvider, StopLatch } from "../src/pipeline/provider-execution.ts";
import { EMITTED_EVENT_TYPES, type EmittedEvent, type ExecutionSink, type StopSignal } from "../providers/sdk/protocol.ts";
import { EventLog, type StoredEvent } from "./event-log.ts";
import { isTerminal, transition, type ExecutionRecord } from "./execution-state.ts";

/** How long past its deadline an execution may go before the alarm ends it regardless. */
const DEADLINE_SLACK_MS = 5_000;

/** The sink a provider receives (DESIGN.md 6): events in, stop notice out. */
class ExecutionSinkTarget extends RpcTarget implements ExecutionSink {
  #onEmit: (e: EmittedEvent) => void;
  #stop: StopLatch;
  constructor(onEmit: (e: EmittedEvent) => void, stop: StopLatch) {
    super();
    this.#onEmit = onEmit;
    this.#stop = stop;
  }
  async emit(event: EmittedEvent): Promise<void> {
    this.#onEmit(event);
  }
  stopped(): Promise<StopSignal> {
    return this.#stop.signal;
  }
}

export class ExecutionObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private readonly events: EventLog;
  private record: ExecutionRecord | undefined;
  private running: Promise<void> | undefined;
  private stop = new StopLatch();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS execution (id INTEGER PRIMARY KEY CHECK (id = 1), record TEXT NOT NULL)");
    this.events = new EventLog(this.sql);
    const row = this.sql.exec<{ record: string }>("SELECT record FROM execution WHERE id = 1").toArray()[0];
    this.record = row ? (JSON.parse(row.record) as ExecutionRecord) : undefined;
    // A fresh instance finding an unfinished record means the instance that ran it is gone
    // (restart or eviction): its provider call went with it, so the execution ends here.
    if (this.record && !isTerminal(this.record.status)) this.finishLost();
  }

  /** Stages 6 and 7 for a new execution. Sync mode answers when it ends; async at once. */
  async execute(plan: ExecutionPlan): Promise<ExecutionView> {
    if (this.record) {
      // The same plan delivered twice (an RPC retry) must never dispatch twice.
      await this.running;
      return toView(this.record);
    }
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
      accepted_at: plan.accepted_at,
      scheduled_at: null,
      running_at: null,
      ended_at: null,
    };
    record = transition(record, "scheduled", now);
    record = transition(record, "running", now, { provider: first.provider });
    // DESIGN.md 8: these writes and the alarm share one commit before the provider call.
    this.save(record);
    this.events.append("start", { sandbox: "v8-isolate", worker: first.provider }, now);
    void this.ctx.storage.setAlarm(plan.accepted_at + plan.timeout_ms + DEADLINE_SLACK_MS);

    this.running = this.run(plan);
    if (plan.mode === "sync") await this.running;
    return toView(this.record!);
  }

  /** The current view, for GET /v1/executions/{id}; undefined for another tenant or no record. */
  async view(tenant: string): Promise<ExecutionView | undefined> {
    if (!this.record || this.record.tenant !== tenant) return undefined;
    return toView(this.record);
  }

  /** The stored events after `after` (SSE replay). */
  async eventsAfter(tenant: string, after: number): Promise<StoredEvent[] | undefined> {
    if (!this.record || this.record.tenant !== tenant) return undefined;
    return this.events.after(after);
  }

  async alarm(): Promise<void> {
    if (!this.record) return;
    if (!isTerminal(this.record.status)) {
      if (this.running) {
        // Past deadline + slack with the call still open: the in-memory timer did not end it.
        this.stop.fire("timeout");
        this.finish(settle({ kind: "timeout" }, this.settleContext()));
      } else {
        this.finishLost();
      }
    }
  }

  private async run(plan: ExecutionPlan): Promise<void> {
    const provider = plan.providers[0];
    const service = this.env[provider.binding] as ProviderService | undefined;
    const sink = new ExecutionSinkTarget((e) => this.onEmit(e), this.stop);
    const outcome = await invokeProvider(
      service,
      {
        execution_id: plan.execution_id,
        tool: plan.tool,
        version: plan.version,
        input: plan.input,
        caller: { tenant: plan.tenant, agent: plan.agent },
        context: plan.context,
        remaining_timeout_ms: remainingBudgetMs(plan.timeout_ms, plan.accepted_at, Date.now()),
      },
      sink,
      this.stop,
    );
    if (this.record && !isTerminal(this.record.status)) {
      this.finish(settle(outcome, this.settleContext()));
    }
  }

  private settleContext() {
    const r = this.record!;
    return { output_hash: r.output_hash, idempotent: r.idempotent, timeout_ms: r.timeout_ms, max_output_bytes: r.max_output_bytes };
  }

  private onEmit(event: EmittedEvent): void {
    if (!this.record || isTerminal(this.record.status)) throw new Error("the execution has ended");
    if (!EMITTED_EVENT_TYPES.includes(event?.type)) throw new Error(`unknown event type ${String(event?.type)}`);
    this.events.append(event.type, event.data, Date.now());
  }

  private finish(settlement: Settlement): void {
    const now = Date.now();
    const partial = this.events.lastData("partial");
    const record = transition(this.record!, settlement.status, now, {
      output: settlement.output,
      error: settlement.error,
      ...(partial !== undefined ? { partial_output: partial } : {}),
    });
    this.save(record);
    const view = toView(record);
    if (record.status === "succeeded") this.events.append("done", { output: view.output, execution: view.execution }, now);
    else this.events.append("error", { status: view.status, error: view.error, partial_output: view.partial_output, execution: view.execution }, now);
  }

  private finishLost(): void {
    this.finish({
      status: "failed",
      error: errorBody("internal", "the execution was interrupted by a restart of the runtime; the provider's outcome is unknown", {
        reason: "execution object restarted",
      }, false),
    });
  }

  private save(record: ExecutionRecord): void {
    this.record = record;
    this.sql.exec("INSERT INTO execution (id, record) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record", JSON.stringify(record));
  }
}
