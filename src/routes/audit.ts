/**
 * `GET /v1/audit`: the audit log, filtered like the index. Operators read every tenant's (or
 * one, with `?tenant=`); a tenant's admin reads its own tenant's only (src/auth/roles.ts);
 * anyone else is refused. Every page also says how far back the log reaches: the oldest record
 * the store still holds, and where the archive keeps the rest (docs/contract.md#archive).
 * `GET /v1/audit/refusals` (operators): rate-limit refusal counts by tenant, tool and reason.
 */
import { reply } from "../codec/negotiate.ts";
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { auditReach, listAudit, parseFilters, type ListFilters } from "../audit/queries.ts";
import { listRefusals } from "../audit/refusal-counts.ts";
import { requireTenantAdmin, roleOf } from "../auth/roles.ts";
import { RuntimeError } from "../errors.ts";
import { auditDb, operatorsOnly } from "./admin.ts";

export const audit = new Hono<AppEnv>();

// Operators only, and registered before the tenant admins' gate below, so an agent hears the
// same refusal as a tenant admin does: the admin role is required.
audit.get("/refusals", operatorsOnly, async (c) =>
  reply(c, await listRefusals(auditDb(c.env), { tenant: c.req.query("tenant"), tool: c.req.query("tool") })),
);

audit.use("*", async (c, next) => {
  requireTenantAdmin(c.get("caller"), "the audit log");
  await next();
});

audit.get("/", async (c) => {
  const caller = c.get("caller");
  const filters = parseFilters((name) => c.req.query(name));
  const asked = c.req.query("tenant");
  if (roleOf(caller) !== "admin" && asked !== undefined && asked !== caller.tenant)
    throw new RuntimeError("forbidden", "a tenant admin reads its own tenant's audit records only", {
      reason: "another tenant",
      field: "tenant",
    });
  const scope: ListFilters = { ...filters, tenant: roleOf(caller) === "admin" ? asked : caller.tenant };
  auditDb(c.env);
  const [page, reach] = await Promise.all([listAudit(c.env, scope), auditReach(c.env, scope.tenant)]);
  return reply(c, { ...page, ...reach });
});
