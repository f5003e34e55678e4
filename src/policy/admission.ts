/**
 * Admission to the tenant's object (AIOS §6.3 RateLimited): one place that asks and turns a
 * refusal into the `rate_limited` error. Unkeyed calls are admitted at the edge; keyed ones
 * by their execution object, so that duplicates of one key are never counted twice.
 */
import type { Admission } from "../../durable-objects/tenant-object.ts";
import type { Env } from "../env.ts";
import { RuntimeError } from "../errors.ts";
import type { TenantLimits } from "./limits.ts";

interface TenantRpc {
  admit(request: { execution_id: string; tool: string; lease_ms: number; limits: TenantLimits }): Promise<Admission>;
  release(executionId: string): Promise<void>;
}

/** Lease length past the execution's own timeout: cancel grace and clock slack. */
const LEASE_SLACK_MS = 60_000;

export function tenantStub(env: Env, tenant: string): TenantRpc {
  return env.TENANTS.get(env.TENANTS.idFromName(tenant)) as unknown as TenantRpc;
}

export async function admit(env: Env, a: { tenant: string; execution_id: string; tool: string; timeout_ms: number; limits: TenantLimits }): Promise<void> {
  const admission = await tenantStub(env, a.tenant).admit({ execution_id: a.execution_id, tool: a.tool, lease_ms: a.timeout_ms + LEASE_SLACK_MS, limits: a.limits });
  if (!admission.ok) throw refusal(admission, a.tool);
}

export function refusal(admission: Extract<Admission, { ok: false }>, tool: string): RuntimeError {
  const what = admission.reason === "concurrency" ? `${admission.limit} running executions` : `${admission.limit} calls a second${admission.reason === "tool_rate" ? ` to ${tool}` : ""}`;
  return new RuntimeError("rate_limited", `over the tenant's limit of ${what}`, { reason: admission.reason, limit: admission.limit, retry_after_ms: admission.retry_after_ms, tool });
}
