/**
 * The execution service: the one module every face calls (REST in JSON and MessagePack,
 * Workers RPC, Connect and gRPC-Web, MCP). A face translates identity and encoding only; what
 * a call means — which path it takes, what is refused and how, what it answers — is decided
 * here, once. Nothing here throws across a face: every answer is an Outcome value.
 *
 *   sync, unstreamed, unkeyed ──▶ the fast path at the edge (edge-run.ts)
 *   async, streamed, keyed    ──▶ an ExecutionObject (planned here, or in the keyed object)
 *   a fast-path call that must wait (its tenant is full, its providers are, or a person must
 *   approve it) ──▶ an ExecutionObject too: anything that waits, waits in an object (docs/contract.md#approvals)
 */
import type {
  ApprovalDecision,
  Caller,
  ExecutionEvent,
  ExecutionRequest,
  ExecutionView,
  Face,
  Outcome,
  PendingApproval,
} from "../contract.ts";
import { loadConfig } from "../config.ts";
import { errorBody, RuntimeError } from "../errors.ts";
import { toJson } from "../codec/bytes.ts";
import type { TraceContext } from "../audit/trace.ts";
import { parseExecutionRequest } from "../pipeline/initiation.ts";
import { requestFingerprint } from "../pipeline/idempotency.ts";
import { dryRun, planExecution, type DryRunReport } from "../pipeline/plan.ts";
import { limitsFor, payloadLimit, type TenantLimits } from "../policy/limits.ts";
import type { DeprecationNotice } from "../registry/catalog.ts";
import { EventStream } from "../stream/ndjson.ts";
import { StreamSlot } from "../stream/tenant-streams.ts";
import { readEdgeView } from "../audit/records.ts";
import { listExecutions, type IndexItem, type ListFilters } from "../audit/queries.ts";
import { admitFast, chargeCall, liveExecutions } from "../policy/admission.ts";
import { tenantStub } from "../object-stubs.ts";
import { approvalRuleFor, isApprover } from "../policy/approvals.ts";
import { chargeRequests } from "../policy/request-rate.ts";
import { executionScope, inScope, roleOf, type ExecutionScope } from "../auth/roles.ts";
import { checkReach } from "../pipeline/plan.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import type { StartAnswer } from "./object-rpc.ts";
import { runAtEdge, type Admitted } from "./edge-run.ts";
import { isTerminal } from "./record.ts";
import { mayWait } from "./waiting.ts";
import { keyedObjectId, locate, newEdgeExecutionId, newObjectExecutionId, objectStub } from "./ids.ts";

/** Who is calling and how: everything a face knows about a call besides its envelope. */
export interface CallContext {
  env: Env;
  caller: Caller;
  face: Face;
  /** When the face accepted the call; the budget counts from here (docs/contract.md#budgets). */
  acceptedAt: number;
  trace: TraceContext;
  waitUntil: (p: Promise<unknown>) => void;
  /** Size of the request as the face received it; measured from the envelope when absent. */
  requestBytes?: number;
}

/** What a call answers, by how it asked to be delivered (docs/contract.md#modes). */
export type CallAnswer =
  | { kind: "finished"; view: ExecutionView; replayed: boolean; deprecation?: DeprecationNotice }
  | {
      kind: "accepted";
      execution_id: string;
      status: ExecutionView["status"];
      replayed: boolean;
      deprecation?: DeprecationNotice;
    }
  | {
      kind: "stream";
      execution_id: string;
      replayed: boolean;
      deprecation?: DeprecationNotice;
      events: AsyncIterable<ExecutionEvent>;
    }
  | { kind: "dry_run"; report: DryRunReport };

/**
 * Invokes a tool: stages 1-7 for any envelope (docs/contract.md#request), on any face. Every call takes one
 * token of its tenant's rate, whatever it answers: an admitted one (or one that will be) its
 * call token before level 2; a dry run, or a call refused before admission (malformed,
 * forbidden, unknown tool, invalid input), a request token (src/policy/request-rate.ts).
 */
export async function execute(ctx: CallContext, envelope: unknown): Promise<Outcome<CallAnswer>> {
  const charge: Charge = { taken: false };
  const outcome = await guard(() => call(ctx, envelope, charge));
  if (outcome.ok || charge.taken || outcome.error.code === "rate_limited") return outcome;
  const counted = await guard(async () => ok(await chargeRequests(ctx.env, ctx.caller, ctx.waitUntil)));
  return counted.ok ? outcome : counted;
}

/** Whether a call has taken (or been refused) its token yet. */
interface Charge {
  taken: boolean;
}

async function call(ctx: CallContext, envelope: unknown, charge: Charge): Promise<Outcome<CallAnswer>> {
  const request = parseExecutionRequest(envelope);
  checkPayload(ctx, envelope);
  if (request.mode === "dry_run") {
    // A dry run is never admitted, so its token is taken here, before it asks the verifier
    // or reads any provider's gate.
    charge.taken = true;
    await chargeRequests(ctx.env, ctx.caller, ctx.waitUntil);
    return ok({ kind: "dry_run", report: await dryRun(ctx.env, ctx.caller, request) });
  }
  const delivery = request.stream ? "stream" : request.mode === "async" ? "accepted" : "end";
  if (delivery === "end" && !request.idempotency_key) return runFast(ctx, request, charge);
  // A stream takes one of the tenant's stream slots before anything starts (docs/contract.md#streaming).
  const slot = delivery === "stream" ? await StreamSlot.take(ctx.env, ctx.caller.tenant) : undefined;
  let answer: ObjectAnswer;
  try {
    if (request.idempotency_key) {
      answer = await startKeyed(ctx, request, delivery, charge);
    } else {
      const executionId = newObjectExecutionId(ctx.env);
      const admit = (tool: string, limits: TenantLimits) => takeCallToken(ctx, charge, tool, limits);
      const { plan, deprecation } = await planExecution(ctx.env, ctx.caller, request, {
        ...meta(ctx, executionId),
        admit,
        paid: true,
      });
      const started = await objectStub(ctx.env, executionId).start(plan, delivery);
      answer = started.ok && deprecation ? { ok: true, value: { ...started.value, deprecation } } : started;
    }
  } catch (err) {
    await slot?.release();
    throw err;
  }
  if (slot && !(answer.ok && answer.value.stream)) await slot.release();
  return fromObject(answer, slot);
}

/** A call's token of its tenant's and tool's rate, before level 2; refused: `rate_limited`. */
async function takeCallToken(ctx: CallContext, charge: Charge, tool: string, limits: TenantLimits): Promise<void> {
  charge.taken = true;
  await chargeCall(ctx.env, ctx.caller.tenant, tool, limits, ctx.waitUntil);
}

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
async function readScope(caller: CallContext["caller"], location: ReturnType<typeof locate>): Promise<ExecutionScope> {
  const own = executionScope(caller);
  if (roleOf(caller) !== "approver" || location?.kind !== "object") return own;
  const tenantWide = { tenant: caller.tenant, agent: null };
  if (await location.stub.view(own)) return own;
  return (await location.stub.view(tenantWide))?.approval ? tenantWide : own;
}

/** docs/contract.md#statuses: an execution's current view, within the caller's scope only. */
export async function get(
  ctx: Pick<CallContext, "env" | "caller">,
  executionId: string,
): Promise<Outcome<ExecutionView>> {
  return guard(async () => {
    const location = locate(ctx.env, executionId);
    const scope = await readScope(ctx.caller, location);
    let view: ExecutionView | null | undefined;
    if (location?.kind === "object") view = await location.stub.view(scope);
    else if (location?.kind === "edge")
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

export async function events(
  ctx: Pick<CallContext, "env" | "caller">,
  executionId: string,
  after: number,
): Promise<EventsOutcome> {
  return guard<EventsOutcome extends Outcome<infer T> ? T : never>(async () => {
    const location = locate(ctx.env, executionId);
    const scope = await readScope(ctx.caller, location);
    if (location?.kind === "edge") {
      // A fast-path execution has ended before anyone could ask: its stream is its end.
      const view = await readEdgeView(
        ctx.env,
        scope,
        executionId,
        location.accepted_at,
        loadConfig(ctx.env).systemMaxTimeoutMs,
      );
      if (!view) throw notFound(executionId);
      return ok({ kind: "ended" as const });
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
  ctx: Pick<CallContext, "env" | "caller">,
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
  ctx: Pick<CallContext, "env" | "caller">,
  filters: ListFilters,
): Promise<Outcome<{ executions: IndexItem[]; next_cursor: string | null }>> {
  return guard(async () => {
    const scope = executionScope(ctx.caller);
    const f = { ...filters, tenant: scope.tenant, ...(scope.agent === null ? {} : { agent: scope.agent }) };
    const wantsLive = f.status === undefined || LIVE.has(f.status);
    const [stored, live] = await Promise.all([
      f.status !== undefined && LIVE.has(f.status)
        ? { executions: [], next_cursor: null }
        : listExecutions(ctx.env.AUDIT_DB, f),
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

/**
 * A person with the approver role decides on one of its tenant's calls that awaits
 * approval (a reason is required to reject). Another tenant's id is not found; a call that
 * does not await approval (decided, never needed it, finished) is `approval_not_pending`.
 */
export async function decide(
  ctx: Pick<CallContext, "env" | "caller">,
  executionId: string,
  decision: "approved" | "rejected",
  reason: unknown,
): Promise<Outcome<ExecutionView>> {
  return guard(async () => {
    requireApprover(ctx.caller);
    if (reason !== undefined && reason !== null && (typeof reason !== "string" || reason.length > 1_000))
      throw new RuntimeError("invalid_request", "reason must be a string of at most 1000 characters", {
        field: "reason",
      });
    if (decision === "rejected" && (typeof reason !== "string" || reason.trim() === ""))
      throw new RuntimeError("invalid_request", "a rejection needs a reason", { field: "reason" });
    const location = locate(ctx.env, executionId);
    // A fast-path id never waits for anyone: like an unknown one, as are other tenants' (docs/contract.md#routes).
    if (location?.kind !== "object") throw notFound(executionId);
    const made: ApprovalDecision = {
      decision,
      approver: ctx.caller.agent,
      reason: typeof reason === "string" && reason.trim() !== "" ? reason : null,
      at: new Date().toISOString(),
    };
    const { self_approval } = approvalRuleFor(loadConfig(ctx.env).approvals, ctx.caller.tenant);
    const answer = await location.stub.decide(ctx.caller.tenant, made, self_approval);
    if (!answer) throw notFound(executionId);
    return answer;
  });
}

/** The caller's tenant's calls waiting for a person's approval, oldest first (approvers only). */
export async function approvals(
  ctx: Pick<CallContext, "env" | "caller">,
): Promise<Outcome<{ approvals: PendingApproval[] }>> {
  return guard(async () => {
    requireApprover(ctx.caller);
    const pending = await tenantStub(ctx.env, ctx.caller.tenant).approvals();
    return ok({ approvals: pending.map(({ mode: _mode, ...a }) => a) });
  });
}

function requireApprover(caller: Caller): void {
  if (!isApprover(caller))
    throw new RuntimeError("forbidden", "approving calls is for callers with the approver role", {
      reason: "approver role required",
    });
}

const LIVE = new Set(["awaiting_approval", "queued", "scheduled", "running"]);

async function runFast(ctx: CallContext, request: ExecutionRequest, charge: Charge): Promise<Outcome<CallAnswer>> {
  const executionId = newEdgeExecutionId(ctx.env, ctx.acceptedAt);
  // Admitted before level 2 (src/pipeline/plan.ts `admit`): a call over its tenant's rate asks
  // no verifier and no provider's gate. A full tenant is not a refusal yet: the call may wait
  // (in an object, which then admits it with the token it takes there).
  let admission: Admitted | undefined;
  let paid = false;
  const admit = async (tool: string, limits: TenantLimits, approval: boolean) => {
    if (approval) {
      // It waits for a person in an object, which gives it a slot then; its token is taken now.
      await takeCallToken(ctx, charge, tool, limits);
      paid = true;
      return;
    }
    charge.taken = true;
    try {
      admission = { ticket: await admitFast(ctx.env, ctx.caller.tenant, tool, limits, ctx.waitUntil) };
    } catch (err) {
      if (err instanceof RuntimeError && err.code === "rate_limited" && err.details?.reason === "concurrency")
        admission = { full: err };
      else throw err;
    }
  };
  let planned;
  try {
    planned = await planExecution(ctx.env, ctx.caller, request, { ...meta(ctx, executionId), admit });
  } catch (err) {
    if (admission && "ticket" in admission) admission.ticket.release();
    throw err;
  }
  const { deprecation } = planned;
  const plan = paid ? { ...planned.plan, paid } : planned.plan;
  // Held by waitUntil too: a sync caller that goes away does not stop its execution.
  const running = runAtEdge(ctx.env, plan, ctx.waitUntil, { canWait: mayWait(plan, Date.now()), admission });
  ctx.waitUntil(running.catch(() => {}));
  const outcome = await running;
  if (outcome.kind === "wait") {
    // It must wait, and waiting is done in an object: the same call, started there.
    const waiting = await toObjectPlan(ctx, request, plan);
    const answer = await objectStub(ctx.env, waiting.execution_id).start(waiting, "end");
    return fromObject(answer.ok && deprecation ? { ok: true, value: { ...answer.value, deprecation } } : answer);
  }
  // A provider fault or a trial was answered by the provider's health shard, whose view has
  // already patched this isolate's snapshot copy (src/registry/health-reporter.ts).
  const view = outcome.view;
  return ok({ kind: "finished", view, replayed: false, ...(deprecation ? { deprecation } : {}) });
}

/**
 * A fast-path plan moved to an object's id. The id is only an address, except for a read-only
 * tool's background intent verdict (docs/contract.md#capabilities level 2), which is sent under the id it was
 * planned with: such a plan is made again under the new id so its verdict finds its record.
 */
async function toObjectPlan(ctx: CallContext, request: ExecutionRequest, plan: ExecutionPlan): Promise<ExecutionPlan> {
  const executionId = newObjectExecutionId(ctx.env);
  if (plan.capability.level2.verdict !== "pending") return { ...plan, execution_id: executionId };
  return (await planExecution(ctx.env, ctx.caller, request, { ...meta(ctx, executionId), paid: plan.paid })).plan;
}

/**
 * A keyed call goes to its key's object at once: a duplicate is answered there before any
 * later stage. A key is the agent's own (tenant + agent + key), so one agent's key never
 * replays another's execution; and the caller must still reach the tool (its channels) before
 * anything is replayed to it, or a key would outlive the right it was used with.
 */
async function startKeyed(
  ctx: CallContext,
  request: ExecutionRequest,
  delivery: "end" | "accepted" | "stream",
  charge: Charge,
): Promise<ObjectAnswer> {
  const tool = await checkReach(ctx.env, ctx.caller, request, ctx.waitUntil);
  // Every keyed request takes its token here, a duplicate too: a replay costs the key's object.
  await takeCallToken(ctx, charge, tool, limitsFor(loadConfig(ctx.env).limits, ctx.caller.tenant));
  const fingerprint = await requestFingerprint(request);
  return objectStub(
    ctx.env,
    keyedObjectId(ctx.env, ctx.caller.tenant, ctx.caller.agent, request.idempotency_key!),
  ).startKeyed(
    {
      caller: ctx.caller,
      request,
      fingerprint,
      accepted_at: ctx.acceptedAt,
      trace: ctx.trace,
      face: ctx.face,
      paid: true,
    },
    delivery,
  );
}

type ObjectAnswer = Outcome<StartAnswer>;

/**
 * An object's answer as the face sees it; a refusal the object sent passes through as it is.
 * A stream holds the tenant's stream `slot` (taken for it) until it ends.
 */
function fromObject(answer: ObjectAnswer, slot?: StreamSlot): Outcome<CallAnswer> {
  if (!answer.ok) return answer;
  const { view, replayed, stream, deprecation } = answer.value;
  const dep = deprecation ? { deprecation } : {};
  if (stream)
    return ok({
      kind: "stream",
      execution_id: view.execution_id,
      replayed,
      events: slot ? slot.hold(new EventStream(stream)) : new EventStream(stream),
      ...dep,
    });
  if (!isTerminal(view.status)) {
    return ok({ kind: "accepted", execution_id: view.execution_id, status: view.status, replayed, ...dep });
  }
  return ok({ kind: "finished", view, replayed, ...dep });
}

/** The tenant's payload limit, on every face (a REST body was already cut off while it was read). */
function checkPayload(ctx: CallContext, envelope: unknown): void {
  const config = loadConfig(ctx.env);
  const max = payloadLimit(config, ctx.caller.tenant);
  const bytes = ctx.requestBytes ?? new TextEncoder().encode(toJson(envelope)).byteLength;
  if (bytes > max)
    throw new RuntimeError("payload_too_large", `request is ${bytes} bytes; the maximum is ${max}`, {
      max_bytes: max,
      actual_bytes: bytes,
    });
}

function meta(ctx: CallContext, executionId: string) {
  return { acceptedAt: ctx.acceptedAt, trace: ctx.trace, face: ctx.face, executionId, waitUntil: ctx.waitUntil };
}

function notFound(executionId: string): RuntimeError {
  // Unknown, expired and other tenants' ids all answer the same (docs/contract.md#routes).
  return new RuntimeError("execution_not_found", `no execution ${executionId}`, { execution_id: executionId });
}

function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** The service's one boundary: a stage's RuntimeError becomes a refusal value; anything else is logged and answered `internal`. */
async function guard<T>(fn: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RuntimeError) return { ok: false, error: err.toBody() };
    const ref = crypto.randomUUID();
    console.error(
      JSON.stringify({ msg: "execution service failed", ref, error: String(err), stack: (err as Error)?.stack }),
    );
    return { ok: false, error: errorBody("internal", "the runtime failed while handling the call", { ref }, false) };
  }
}
