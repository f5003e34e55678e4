/**
 * A waiting execution that ends without running (cancelled, rejected, expired, refused) lets go
 * of whatever it waited in (docs/contract.md#waiting): its place among its tenant's pending
 * approvals, its place or slot at its tenant, its place in its providers' lines. Each is a
 * request that may fail: what is not let go of here expires by itself.
 */
import { releaseExecution } from "../policy/admission.ts";
import { gateStub, tenantStub } from "../object-stubs.ts";
import type { ExecutionPlan } from "./execution-plan.ts";
import type { ExecutionRecord } from "./record.ts";

/** Lets go of what `was` (the record as it waited) held; `plan` names its providers. */
export function letGoOfWait(env: Env, was: ExecutionRecord, plan: ExecutionPlan | undefined): void {
  if (was.status === "awaiting_approval")
    void tenantStub(env, was.tenant)
      .approvalDone(was.execution_id)
      .catch(() => {});
  if (was.status === "queued" || was.status === "scheduled") void releaseExecution(env, was.tenant, was.execution_id);
  if (was.status === "scheduled") {
    for (const p of plan?.providers.filter((c) => c.max_concurrency) ?? [])
      void gateStub(env, p.provider)
        .leave(was.execution_id)
        .catch(() => {});
  }
}
