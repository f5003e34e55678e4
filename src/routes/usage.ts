/**
 * `GET /v1/usage` (docs/contract.md#usage): what a tenant used, by day and tool, with a cost
 * estimate. Who may read whose is decided as for the audit log (src/routes/audit.ts): a tenant's
 * admin its own tenant's, an operator any tenant's (`?tenant=`, by default its own); anyone else
 * is refused.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { tenantShard } from "../audit/shards.ts";
import { parseUsageWindow, readTenantUsage } from "../audit/tenant-usage.ts";
import { requireTenantAdmin, roleOf } from "../auth/roles.ts";
import { reply } from "../codec/negotiate.ts";
import { RuntimeError } from "../errors.ts";
import { auditDb } from "./admin.ts";

export const usage = new Hono<AppEnv>();

usage.get("/", async (c) => {
  const caller = c.get("caller");
  requireTenantAdmin(caller, "usage");
  const asked = c.req.query("tenant");
  if (asked !== undefined && asked !== caller.tenant && roleOf(caller) !== "admin")
    throw new RuntimeError("forbidden", "a tenant admin reads its own tenant's usage only", {
      reason: "another tenant",
      field: "tenant",
    });
  const window = parseUsageWindow((name) => c.req.query(name), Date.now());
  auditDb(c.env);
  const tenant = asked ?? caller.tenant;
  return reply(c, await readTenantUsage(tenantShard(c.env, tenant), tenant, window));
});
