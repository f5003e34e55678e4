/**
 * A person with the approver role decides its tenant's calls that await approval
 * (docs/contract.md#approvals), for every face.
 */
import type { ApprovalDecision, Caller, ExecutionView, Outcome, PendingApproval } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { tenantStub } from "../object-stubs.ts";
import { approvalRuleFor, isApprover } from "../policy/approvals.ts";
import { locate } from "./ids.ts";
import { guard, notFound, ok, type ServiceContext } from "./service-boundary.ts";
/**
 * A person with the approver role decides on one of its tenant's calls that awaits
 * approval (a reason is required to reject). Another tenant's id is not found; a call that
 * does not await approval (decided, never needed it, finished) is `approval_not_pending`.
 */
export async function decide(
  ctx: ServiceContext,
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
export async function approvals(ctx: ServiceContext): Promise<Outcome<{ approvals: PendingApproval[] }>> {
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
