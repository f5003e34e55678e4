/**
 * The fast path (DESIGN.md 8): a sync call that is not streamed and has no idempotency key
 * cannot be observed while it runs — nobody has its id until it answers — so it needs no
 * object while it runs. The edge runs stages 6-7 itself (the same ExecutionRun an object runs),
 * admits it from this isolate's lease, and before answering hands the finished record to the
 * audit queue (or, if the queue refuses it, to the durable outbox): an isolate that dies after
 * answering has already made the record durable. The consumer keeps it where
 * GET /v1/executions/{id} finds it for the retention window (src/audit/records.ts).
 */
import { toJson } from "../codec/bytes.ts";
import type { ExecutionView } from "../contract.ts";
import { auditEntryOf, deliverAudit, MAX_MESSAGE_BYTES } from "../audit/outbox.ts";
import { rememberView, storeView } from "../audit/records.ts";
import { admitFast } from "../policy/admission.ts";
import type { ExecutionPlan } from "./dispatch.ts";
import { toView } from "./record.ts";
import { ExecutionRun } from "./run.ts";
import { shedIfLate } from "./shed.ts";
import { takeTrial } from "./trial.ts";

/** Runs a planned fast-path call to its end and makes its record durable; throws `rate_limited` when not admitted. */
export async function runAtEdge(env: Env, planned: ExecutionPlan, waitUntil: (p: Promise<unknown>) => void): Promise<ExecutionView> {
  const ticket = await admitFast(env, planned.tenant, planned.tool, planned.limits, waitUntil);
  let run: ExecutionRun;
  try {
    shedIfLate(planned);
    // After admission: a call refused before now never held a half-open provider's trial.
    const plan = await takeTrial(env, planned);
    // Events of an unobserved call have no reader; only the partial output (kept by the run) matters.
    run = ExecutionRun.begin(env, plan, { background: waitUntil, save: () => {}, emit: () => {} });
  } catch (err) {
    ticket.release();
    throw err;
  }
  // The tenant's slot is held until the provider's call has really returned (WORK_CAP_MS at most).
  waitUntil(run.workStopped().finally(() => ticket.release()));
  const record = await run.done;
  const view = toView(record);
  const viewJson = toJson(view);
  const message = { kind: "finished" as const, record: auditEntryOf(record), retention_ms: record.retention_ms };
  rememberView(record.tenant, view, record.ended_at! + record.retention_ms);
  if (viewJson.length + toJson(message).length > MAX_MESSAGE_BYTES) {
    // Too large for a queue message: the view goes to the store directly, the record by queue.
    await storeView(env, { execution_id: record.execution_id, tenant: record.tenant, view: viewJson, expires_at: record.ended_at! + record.retention_ms });
    await deliverAudit(env, { ...message, view_stored: true });
  } else {
    await deliverAudit(env, { ...message, view: viewJson });
  }
  return view;
}
