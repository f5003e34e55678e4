/**
 * Reading, streaming, cancelling and listing executions, for every face (docs/contract.md#statuses).
 */
import type { Caller, ExecutionEvent, ExecutionView, Outcome } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { EventStream } from "../stream/ndjson.ts";
import { StreamSlot } from "../stream/tenant-streams.ts";
import { readEdgeView, withStoredUsage } from "../audit/records.ts";
import { listExecutions, type IndexItem, type ListFilters } from "../audit/queries.ts";
import { liveExecutions } from "../policy/admission.ts";
import { executionScope, inScope, roleOf, type ExecutionScope } from "../auth/roles.ts";
import { locate } from "./ids.ts";
import { eventsAtHand, replayEnd, replayEvents } from "./replay.ts";
import { guard, notFound, ok, type ServiceContext } from "./service-boundary.ts";
/*
 * Who may read, stream, cancel and list which executions is decided here, once, for every
 * face (src/auth/roles.ts): an agent (and an approver) its own agent's; a tenant admin or an
 * operator every one of its tenant's. Anything outside the caller's scope answers exactly like
 * an unknown id, so existence does not leak.
 */

/**
 * Whose executions a caller may read. An approver decides calls of other agents of its tenant,
 * so it may also read (never cancel) an execution of its tenant that needed an approval; one
 * that did not is as unknown to it as to any agent. Costs an approver one more object request
 * when the execution is not its own.
 */
async function readScope(caller: Caller, location: ReturnType<typeof locate>): Promise<ExecutionScope> {
  const own = executionScope(caller);
  if (roleOf(caller) !== "approver" || location?.kind !== "object") return own;
  const tenantWide = { tenant: caller.tenant, agent: null };
  if (await location.stub.view(own)) return own;
  return (await location.stub.view(tenantWide))?.approval ? tenantWide : own;
}

/** docs/contract.md#statuses: an execution's current view, within the caller's scope only. */
export async function get(ctx: ServiceContext, executionId: string): Promise<Outcome<ExecutionView>> {
  return guard(async () => {
    const location = locate(ctx.env, executionId);
    const scope = await readScope(ctx.caller, location);
    let view: ExecutionView | null | undefined;
    if (location?.kind === "object") {
      view = await location.stub.view(scope);
      if (view) view = await withStoredUsage(ctx.env, scope.tenant, view);
    } else if (location?.kind === "edge")
      view = await readEdgeView(
        ctx.env,
        scope,
        executionId,
        location.accepted_at,
        loadConfig(ctx.env).systemMaxTimeoutMs,
      );
    if (!view) throw notFound(executionId);
    return ok(view);
  });
}

/** docs/contract.md#streaming: the events after `after`, then live ones; `ended` when nothing is left to send. */
type EventsOutcome = Outcome<{ kind: "ended" } | { kind: "stream"; events: AsyncIterable<ExecutionEvent> }>;

export async function events(ctx: ServiceContext, executionId: string, after: number): Promise<EventsOutcome> {
  return guard<EventsOutcome extends Outcome<infer T> ? T : never>(async () => {
    const location = locate(ctx.env, executionId);
    const scope = await readScope(ctx.caller, location);
    if (location?.kind === "edge") {
      // A fast-path execution ended before anyone could ask: its stream is replayed from its
      // record, the view GET answers (src/execution/replay.ts).
      const view = await readEdgeView(
        ctx.env,
        scope,
        executionId,
        location.accepted_at,
        loadConfig(ctx.env).systemMaxTimeoutMs,
      );
      if (!view) throw notFound(executionId);
      if (after >= replayEnd(view)) return ok({ kind: "ended" as const });
      // A replay is an open stream like any other: it takes a slot, given back when it closes.
      const slot = await StreamSlot.take(ctx.env, ctx.caller.tenant);
      return ok({
        kind: "stream" as const,
        events: slot.hold(eventsAtHand(replayEvents(view, location.accepted_at, after))),
      });
    }
    if (!location) throw notFound(executionId);
    const slot = await StreamSlot.take(ctx.env, ctx.caller.tenant);
    const answer = await location.stub.events(scope, after).catch(async (err: unknown) => {
      await slot.release();
      throw err;
    });
    if (!answer.ok || answer.value.kind === "ended") await slot.release();
    if (!answer.ok)
      return answer.error.code === "execution_not_found"
        ? { ok: false, error: notFound(executionId).toBody() }
        : answer;
    return ok(
      answer.value.kind === "ended"
        ? { kind: "ended" as const }
        : { kind: "stream" as const, events: slot.hold(new EventStream(answer.value.stream)) },
    );
  });
}

/**
 * docs/contract.md#cancellation: cancel with a grace period (`grace_ms`, default CANCEL_GRACE_MS, at most
 * MAX_CANCEL_GRACE_MS; more is refused, not clamped). Answers when the execution has ended.
 */
export async function cancel(
  ctx: ServiceContext,
  executionId: string,
  graceMs: unknown,
): Promise<Outcome<ExecutionView>> {
  return guard(async () => {
    const config = loadConfig(ctx.env);
    const grace = graceMs ?? config.cancelGraceMs;
    if (typeof grace !== "number" || !Number.isSafeInteger(grace) || grace < 0 || grace > config.maxCancelGraceMs) {
      throw new RuntimeError("invalid_request", `grace_ms must be an integer from 0 to ${config.maxCancelGraceMs}`, {
        field: "grace_ms",
        max: config.maxCancelGraceMs,
      });
    }
    const location = locate(ctx.env, executionId);
    const scope = executionScope(ctx.caller);
    if (location?.kind === "edge") {
      // Nothing can cancel a fast-path execution: it has ended before its id is known.
      const view = await readEdgeView(ctx.env, scope, executionId, location.accepted_at, config.systemMaxTimeoutMs);
      if (!view) throw notFound(executionId);
      return ok(
        view.cancellation
          ? view
          : { ...view, cancellation: { requested_at: new Date().toISOString(), outcome: "already_finished" as const } },
      );
    }
    const view = location ? await location.stub.cancel(scope, grace) : null;
    if (!view) throw notFound(executionId);
    return ok(view);
  });
}

/**
 * The tenant's executions, newest first (docs/contract.md#retention): finished ones from the audit
 * store, and the ones running in their objects now from the tenant's ledger (no message is
 * sent while an execution runs). A fast-path call appears once it has answered.
 */
export async function list(
  ctx: ServiceContext,
  filters: ListFilters,
): Promise<Outcome<{ executions: IndexItem[]; next_cursor: string | null }>> {
  return guard(async () => {
    const scope = executionScope(ctx.caller);
    const f = { ...filters, tenant: scope.tenant, ...(scope.agent === null ? {} : { agent: scope.agent }) };
    const wantsLive = f.status === undefined || LIVE.has(f.status);
    const [stored, live] = await Promise.all([
      f.status !== undefined && LIVE.has(f.status) ? { executions: [], next_cursor: null } : listExecutions(ctx.env, f),
      wantsLive
        ? liveExecutions(ctx.env, ctx.caller.tenant).then((items) =>
            items.filter((e) => inScope(scope, scope.tenant, e.agent)),
          )
        : [],
    ]);
    const seen = new Set(stored.executions.map((e) => e.execution_id));
    const liveItems: IndexItem[] = live
      .filter(
        (e) =>
          !seen.has(e.execution_id) &&
          (f.tool === undefined || e.tool === f.tool) &&
          (f.project === undefined || e.project === f.project),
      )
      .filter(
        (e) =>
          (f.since === undefined || e.accepted_at >= f.since) && (f.until === undefined || e.accepted_at < f.until),
      )
      .filter(
        (e) =>
          !f.cursor || e.accepted_at < f.cursor.t || (e.accepted_at === f.cursor.t && e.execution_id < f.cursor.id),
      )
      .filter((e) => f.status === undefined || e.status === f.status)
      .map((e) => ({
        execution_id: e.execution_id,
        tool: e.tool,
        version: e.version,
        provider: null,
        project: e.project,
        mode: e.mode,
        status: e.status,
        error_code: null,
        accepted_at: new Date(e.accepted_at).toISOString(),
        ended_at: null,
      }));
    // Live executions join the page in order; the page's end (and cursor) stays the store's.
    const merged = [
      ...liveItems.filter(
        (e) =>
          stored.next_cursor === null ||
          Date.parse(e.accepted_at!) >= Date.parse(stored.executions.at(-1)!.accepted_at!),
      ),
      ...stored.executions,
    ];
    merged.sort(
      (a, b) => Date.parse(b.accepted_at!) - Date.parse(a.accepted_at!) || (a.execution_id < b.execution_id ? 1 : -1),
    );
    return ok({ executions: merged, next_cursor: stored.next_cursor });
  });
}

const LIVE = new Set(["awaiting_approval", "queued", "scheduled", "running"]);
