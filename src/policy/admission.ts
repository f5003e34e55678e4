/**
 * Admission (docs/contract.md#limits), the one place that asks a tenant's ledger and turns a
 * refusal into `rate_limited`. Fast-path calls are admitted from this isolate's lease
 * (src/policy/lease.ts: no request in the common case); an execution with its own object is
 * admitted by that object with one request, and releases its slot when it ends.
 */
import type { Outcome } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import type { ExecutionPlan } from "../execution/execution-plan.ts";
import { tenantStub } from "../object-stubs.ts";
import type { Refusal } from "./ledger.ts";
import { TenantLease, type Ticket } from "./lease.ts";
import type { TenantLimits } from "./limits.ts";

/** Lease length past the execution's own timeout: cancel grace and clock slack. */
const LEASE_SLACK_MS = 60_000;

/**
 * An execution in its own object: one token and one slot, held until `releaseExecution` — or,
 * when it may `wait`, a place in its tenant's queue (docs/contract.md#waiting): `{queued: position}`, and the
 * tenant's object calls the execution's `granted()` when a slot is its. `paid`: its tokens were
 * taken when it was accepted (it waited for a person first).
 */
export async function admitExecution(
  env: Env,
  plan: ExecutionPlan,
  o: { wait: boolean; paid?: boolean },
): Promise<Outcome<{ queued?: number }>> {
  const admission = await tenantStub(env, plan.tenant).admit({
    execution_id: plan.execution_id,
    tool: plan.tool,
    version: plan.version,
    mode: plan.mode,
    project: plan.project,
    agent: plan.agent,
    accepted_at: plan.accepted_at,
    lease_ms: plan.timeout_ms + LEASE_SLACK_MS,
    limits: plan.limits,
    wait: o.wait,
    paid: o.paid,
  });
  if (!admission.ok) return { ok: false, error: refusal(admission, plan.tool).toBody() };
  return { ok: true, value: admission.queued ? { queued: admission.position } : {} };
}

/** The slot (or the place in the queue) goes back to the tenant, and to the next in line. */
export async function releaseExecution(env: Env, tenant: string, executionId: string): Promise<void> {
  await tenantStub(env, tenant)
    .release(executionId)
    .catch((err) =>
      console.warn(
        JSON.stringify({
          msg: "slot release failed; the lease expires by itself",
          execution_id: executionId,
          error: String(err),
        }),
      ),
    );
}

/** An execution's place in its tenant's queue (1 is next), 0 when it holds a slot, null when unknown. */
export function queuePosition(env: Env, tenant: string, executionId: string): Promise<number | null> {
  return tenantStub(env, tenant).position(executionId);
}

/** The tenant's executions that hold a slot, wait for one or wait for a person now (the live part of the index). */
export function liveExecutions(env: Env, tenant: string) {
  return tenantStub(env, tenant).live();
}

/** This isolate's leases, one per tenant. */
const leases = new Map<string, TenantLease>();

/** A fast-path call: admitted from this isolate's lease; throws `rate_limited` when refused. */
export async function admitFast(
  env: Env,
  tenant: string,
  tool: string,
  limits: TenantLimits,
  background: (p: Promise<unknown>) => void,
): Promise<Ticket> {
  const ticket = await leaseOf(env, tenant).admit(tool, limits, background);
  if ("ok" in ticket) throw refusal(ticket, tool);
  return ticket;
}

/**
 * A call that runs in its own object (async, streamed, keyed, or waiting for a person): its
 * token of the tenant's and the tool's rate, taken from this isolate's lease before level 2 so
 * a call over the rate never reaches the verifier; its object then admits it as paid (a slot,
 * or a place in the queue, and no second token). Throws `rate_limited` when refused.
 */
export async function chargeCall(
  env: Env,
  tenant: string,
  tool: string,
  limits: TenantLimits,
  background: (p: Promise<unknown>) => void,
): Promise<void> {
  const refused = await leaseOf(env, tenant).spendToken(tool, limits, background);
  if (refused) throw refusal(refused, tool);
}

function leaseOf(env: Env, tenant: string): TenantLease {
  let lease = leases.get(tenant);
  if (!lease) {
    lease = new TenantLease((request) => tenantStub(env, tenant).lease(request));
    leases.set(tenant, lease);
  }
  return lease;
}

export function refusal(r: Refusal, tool: string): RuntimeError {
  const what =
    r.reason === "concurrency"
      ? `${r.limit} running executions`
      : r.reason === "queue_full"
        ? `${r.limit} waiting executions`
        : r.reason === "streams"
          ? `${r.limit} open event streams`
          : `${r.limit} calls a second${r.reason === "tool_rate" ? ` to ${tool}` : ""}`;
  return new RuntimeError("rate_limited", `over the tenant's limit of ${what}`, {
    reason: r.reason,
    limit: r.limit,
    retry_after_ms: r.retry_after_ms,
    tool,
  });
}
