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
import type { Caller, ExecutionEvent, ExecutionRequest, ExecutionView, Face, Outcome } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { toJson } from "../codec/bytes.ts";
import type { TraceContext } from "../audit/trace.ts";
import { parseExecutionRequest } from "../pipeline/initiation.ts";
import { requestFingerprint } from "../pipeline/idempotency.ts";
import { checkReach, dryRun, planExecution, type DryRunReport } from "../pipeline/plan.ts";
import { limitsFor, payloadLimit, type TenantLimits } from "../policy/limits.ts";
import type { DeprecationNotice } from "../registry/catalog.ts";
import { EventStream } from "../stream/ndjson.ts";
import { StreamSlot } from "../stream/tenant-streams.ts";
import { admitFast, chargeCall } from "../policy/admission.ts";
import { chargeRequests } from "../policy/request-rate.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import type { StartAnswer } from "./object-rpc.ts";
import { runAtEdge, type Admitted } from "./edge-run.ts";
import { isTerminal } from "./record.ts";
import { mayWait } from "./waiting.ts";
import { keyedObjectId, newEdgeExecutionId, newObjectExecutionId, objectStub } from "./ids.ts";
import { guard, ok } from "./service-boundary.ts";

// Reads and decisions have modules of their own; every face imports the service from here.
export { cancel, events, get, list } from "./reads.ts";
export { approvals, decide } from "./approval-calls.ts";

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
