/**
 * Roles inside a tenant (least privilege: docs/architecture.md "Roles"). A credential is one
 * agent of one tenant, and its role says what it may do beyond calling tools in its channels:
 *
 *   agent         calls tools; reads, streams and cancels its own executions only
 *   tenant_admin  also sees and cancels every execution of its tenant, reads its audit
 *                 records, keeps its upstream tokens and tool bundles, and manages its keys
 *                 (never an operator's)
 *   approver      an agent that also decides its tenant's pending approvals (never its own
 *                 call, unless APPROVALS allows `self_approval`)
 *   admin         an operator: the operator routes, global; named by configuration
 *
 * "tenant", the name of the agent role before there were others, is read as "agent" wherever
 * a role comes from stored keys, tokens or binding props.
 */
import type { Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";

export const ROLES = ["agent", "tenant_admin", "approver", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** A role as stored or claimed; anything unknown is the least one, agent. */
export function parseRole(value: unknown): Role {
  return value === "admin" || value === "tenant_admin" || value === "approver" ? value : "agent";
}

/** The caller's role, whatever spelling it arrived with. */
export function roleOf(caller: Pick<Caller, "role">): Role {
  return parseRole(caller.role);
}

/** Whose executions a caller may see: its tenant's, and only its own agent's unless `agent` is null. */
export interface ExecutionScope {
  tenant: string;
  /** null: every agent of the tenant (tenant admins and operators). */
  agent: string | null;
}

export function executionScope(caller: Caller): ExecutionScope {
  return { tenant: caller.tenant, agent: seesWholeTenant(caller) ? null : caller.agent };
}

/** Is a record of (tenant, agent) inside the scope? A record without an agent is only the whole tenant's. */
export function inScope(scope: ExecutionScope, tenant: string, agent: string | null | undefined): boolean {
  return tenant === scope.tenant && (scope.agent === null || agent === scope.agent);
}

/** Tenant admins and operators see every execution of their tenant. */
export function seesWholeTenant(caller: Pick<Caller, "role">): boolean {
  const role = roleOf(caller);
  return role === "tenant_admin" || role === "admin";
}

/** Refuses anyone but a tenant admin or an operator: `what` says what was asked, for the refusal. */
export function requireTenantAdmin(caller: Pick<Caller, "role">, what: string): void {
  if (!seesWholeTenant(caller))
    throw new RuntimeError("forbidden", `${what} is for the tenant's admins (role tenant_admin) and operators`, {
      reason: "tenant_admin role required",
    });
}
