/**
 * The fast path (docs/contract.md#modes): a sync call that is not streamed and has no idempotency key
 * cannot be observed while it runs — nobody has its id until it answers — so it needs no
 * object while it runs. The edge runs stages 6-7 itself (the same ExecutionRun an object runs),
 * admits it from this isolate's lease, and before answering hands the finished record to the
 * audit queue (or, if the queue refuses it, to the durable outbox): an isolate that dies after
 * answering has already made the record durable. The consumer keeps it where
 * GET /v1/executions/{id} finds it for the retention window (src/audit/records.ts).
 *
 * The fast path never waits (docs/contract.md#waiting): a call that would — its tenant is at max_concurrent,
 * every provider it may use is at its max_concurrency, or its tenant wants a person to approve
 * it — is handed back (`{kind: "wait"}`) for the service to send down the object path, where
 * waiting is durable and can be watched and cancelled.
 */
import { toJson } from "../codec/bytes.ts";
import type { ExecutionView } from "../contract.ts";
import { auditEntryOf, deliverAudit, MAX_MESSAGE_BYTES } from "../audit/outbox.ts";
import { rememberView, storeView } from "../audit/records.ts";
import { RuntimeError } from "../errors.ts";
import { admitFast } from "../policy/admission.ts";
import type { Ticket } from "../policy/lease.ts";
import { claimProvider, type Permit } from "./provider-claim.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import { toView } from "./record.ts";
import { ExecutionRun } from "./run.ts";
import { SHED_RETRY_MS, shedIfLate } from "./shed.ts";

/** How a fast-path call ended: it ran, or it must wait and goes to an object instead. */
export type EdgeOutcome =
  { kind: "finished"; view: ExecutionView } | { kind: "wait"; reason: "approval" | "concurrency" | "capacity" };

/** The call's admission, when it was made while planning (before level 2): a ticket, or the tenant was full. */
export type Admitted = { ticket: Ticket } | { full: RuntimeError };

/**
 * Runs a planned fast-path call to its end and makes its record durable. When it would have to
 * wait and `canWait`, nothing is taken and it is handed back; when it may not wait, the
 * refusal is thrown (`rate_limited` for the tenant's concurrency, `overloaded` for a full provider).
 */
export async function runAtEdge(
  env: Env,
  planned: ExecutionPlan,
  waitUntil: (p: Promise<unknown>) => void,
  o: { canWait: boolean; admission?: Admitted },
): Promise<EdgeOutcome> {
  if (planned.approval) {
    if (o.admission && "ticket" in o.admission) o.admission.ticket.release();
    return { kind: "wait", reason: "approval" };
  }
  let ticket: Ticket;
  try {
    if (o.admission && "full" in o.admission) throw o.admission.full;
    ticket = o.admission?.ticket ?? (await admitFast(env, planned.tenant, planned.tool, planned.limits, waitUntil));
  } catch (err) {
    if (
      o.canWait &&
      err instanceof RuntimeError &&
      err.code === "rate_limited" &&
      err.details?.reason === "concurrency"
    )
      return { kind: "wait", reason: "concurrency" };
    throw err;
  }
  let run: ExecutionRun;
  let permit: Permit | null = null;
  try {
    shedIfLate(planned);
    // After admission: a call refused before now never held a provider's permit or trial.
    const claim = await claimProvider(env, planned, { wait: false });
    if (claim.kind === "full") {
      ticket.release();
      if (o.canWait) return { kind: "wait", reason: "capacity" };
      throw new RuntimeError("overloaded", `every provider of ${planned.tool} is at its max_concurrency`, {
        reason: "provider_full",
        provider: claim.provider,
        retry_after_ms: SHED_RETRY_MS,
      });
    }
    permit = claim.permit;
    // Events of an unobserved call have no reader; only the partial output (kept by the run) matters.
    run = ExecutionRun.begin(env, claim.plan, { background: waitUntil, save: () => {}, emit: () => {} }, { permit });
  } catch (err) {
    ticket.release();
    permit?.release();
    throw err;
  }
  // The tenant's slot is held until the provider's call has really returned (WORK_CAP_MS at most).
  waitUntil(run.workStopped().finally(() => ticket.release()));
  const record = await run.done;
  const view = toView(record);
  const viewJson = toJson(view);
  const message = { kind: "finished" as const, record: auditEntryOf(record), retention_ms: record.retention_ms };
  rememberView(record.tenant, record.agent, view, record.ended_at! + record.retention_ms);
  if (viewJson.length + toJson(message).length > MAX_MESSAGE_BYTES) {
    // Too large for a queue message: the view goes to the store directly, the record by queue.
    await storeView(env, {
      execution_id: record.execution_id,
      tenant: record.tenant,
      view: viewJson,
      expires_at: record.ended_at! + record.retention_ms,
    });
    await deliverAudit(env, { ...message, view_stored: true });
  } else {
    await deliverAudit(env, { ...message, view: viewJson });
  }
  return { kind: "finished", view };
}
