/**
 * What the execution object (execution-object.ts) does for each effect of its lifecycle
 * (src/execution/lifecycle.ts): writes to its storage, requests to the tenant's object and the
 * provider's gate (whose answers come back as events), the fan-out of its events, and the run.
 * Returns a promise for the effects an alarm must see through (the alarm, the audit send, deletion).
 */
import type { ExecutionRecord } from "../src/execution/record.ts";
import { auditEntryOf, sendAudit } from "../src/audit/outbox.ts";
import { RuntimeError } from "../src/errors.ts";
import { pendingApproval } from "../src/execution/approval-wait.ts";
import type { Effect, LifecycleEvent, Settled, Asker, Asked } from "../src/execution/lifecycle-types.ts";
import { internalBody } from "../src/execution/object-answers.ts";
import { abandonTrial, claimGranted, claimProvider } from "../src/execution/provider-claim.ts";
import { relayOf } from "../src/execution/provider-relay.ts";
import { ExecutionRun } from "../src/execution/run.ts";
import { letGoOfWait } from "../src/execution/wait-exit.ts";
import type { PositionWatch } from "../src/execution/position-watch.ts";
import { tenantStub } from "../src/object-stubs.ts";
import { admitExecution, refusal as admissionRefusal, releaseExecution } from "../src/policy/admission.ts";
import type { Fanout } from "../src/stream/fanout.ts";
import type { ExecutionStore } from "./execution-store.ts";

/** What the object lends the effects: its parts, and the way back in for the answers. */
export interface EffectHost {
  env: Env;
  ctx: DurableObjectState;
  store: ExecutionStore;
  fanout: Fanout;
  line: PositionWatch;
  /** Callers waiting for the end (a sync caller of an execution that waits). */
  enders: ((r: ExecutionRecord) => void)[];
  /** Calls waiting for their chain of requests to settle (a start, a decision). */
  settles: Map<Asker, ((s: Settled) => void)[]>;
  /** The run while it runs. */
  run: ExecutionRun | undefined;
  on(event: LifecycleEvent): { done: Promise<void> };
}

/** A request that failed: its body, and the error itself (the start call throws it as before). */
const failed = (err: unknown): Asked => ({ ok: false, error: internalBody(err), thrown: err });

export function carry(h: Host, e: Effect): Promise<unknown> | void {
  const { env, store } = h;
  switch (e.kind) {
    case "save":
      return store.saveRecord(e.record);
    case "save plan":
      return store.savePlan(e.plan);
    case "drop plan":
      return store.dropPlan();
    case "emit":
      if (e.store) store.appendEvent(e.event);
      return h.fanout.publish(e.event);
    case "resolve enders":
      for (const resolve of h.enders.splice(0)) resolve(e.record);
      return;
    case "set alarm":
      return h.ctx.storage.setAlarm(e.at);
    case "ask approval":
      return void tenantStub(env, e.plan.tenant)
        .awaitApproval(pendingApproval(e.plan, e.expires), e.plan.limits, e.plan.paid)
        .then(
          (a): Asked => (a.ok ? { ok: true } : { ok: false, error: admissionRefusal(a, e.plan.tool).toBody() }),
          failed,
        )
        .then((answer) => h.on({ type: "approval asked", answer }));
    case "admit":
      return void admitExecution(env, e.plan, { wait: e.wait, paid: e.paid })
        .then((a): Asked => (a.ok ? { ok: true, ...a.value } : a), failed)
        .then((answer) => h.on({ type: "admitted", answer }));
    case "release slot":
      return void releaseExecution(env, e.tenant, e.execution_id);
    case "claim":
      return void claim(h, e);
    case "release permit":
      return e.permit.release();
    case "abandon trial":
      return void abandonTrial(env, e.plan).catch(() => {});
    case "approval done":
      return void tenantStub(env, e.tenant)
        .approvalDone(e.execution_id)
        .catch(() => {});
    case "let go":
      return letGoOfWait(env, e.was, e.plan);
    case "placed":
      h.line.placed(e.position);
      if (h.fanout.size > 0) h.line.watch();
      return;
    case "left line":
      return h.line.left();
    case "start run":
      return startRun(h, e);
    case "expire run":
      return h.run?.expire();
    case "send audit":
      return sendAudit(env, {
        kind: "finished",
        record: auditEntryOf(e.record),
        retention_ms: e.record.retention_ms,
      }).then((confirm) => h.on({ type: "audit answered", sent: confirm === "sent", byAlarm: e.byAlarm }).done);
    case "delete":
      return h.ctx.storage.deleteAll();
    case "settle":
      for (const resolve of h.settles.get(e.for)?.splice(0) ?? []) resolve(e.settled);
      return;
    // The calls that brought these read them from the effects (cancel awaits the run's end).
    case "cancel run":
    case "reply":
    case "refuse":
      return;
  }
}

type Host = EffectHost;

/** Takes room at a provider, with a permit the gate granted if any; the claim's answer (or why not) is an event. */
async function claim(h: Host, e: Extract<Effect, { kind: "claim" }>): Promise<void> {
  let event: LifecycleEvent;
  try {
    let claimed = e.permit ? await claimGranted(h.env, e.plan, e.permit) : undefined;
    claimed ??= await claimProvider(h.env, e.plan, { wait: true });
    event = { type: "claim answered", claim: claimed };
  } catch (err) {
    event = { type: "claim answered", error: err instanceof RuntimeError ? err.toBody() : internalBody(err) };
  }
  h.on(event);
}

function startRun(h: Host, e: Extract<Effect, { kind: "start run" }>): void {
  const { env, ctx, store, fanout } = h;
  const run = ExecutionRun.begin(
    env,
    e.plan,
    {
      background: (p) => ctx.waitUntil(p),
      relay: relayOf(ctx.exports),
      save: (record) => h.on({ type: "run saved", record }),
      emit: (seq, type, data, at) => {
        const event = { seq, type, data, at };
        store.appendEvent(event);
        fanout.publish(event);
      },
    },
    { record: e.record, permit: e.permit, now: e.now },
  );
  h.run = run;
  void run.done.then((record) => {
    h.run = undefined;
    h.on({ type: "run ended", record });
  });
  // The tenant's slot is held until the provider's call has really returned (WORK_CAP_MS at most).
  void run.workStopped().then(() => releaseExecution(env, e.plan.tenant, e.plan.execution_id));
}
