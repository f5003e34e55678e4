/**
 * OAuth grants, for a tenant's admins (docs/oauth.md#grants): `GET /v1/oauth/grants` lists the
 * tenant's grants (paged), `DELETE /v1/oauth/grants/{id}` revokes one and every token of it.
 * A tenant admin sees its own tenant only; an operator any tenant, named by `?tenant=` (its own
 * key's tenant by default). Anyone else is refused (src/auth/roles.ts). The OAuth library loads
 * with the first such request (docs/architecture.md#start-up-and-size).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { requireTenantAdmin, roleOf } from "../auth/roles.ts";
import { reply } from "../codec/negotiate.ts";
import type { Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";

export const oauthGrants = new Hono<AppEnv>();

const MAX_LIMIT = 1000;
const DEFAULT_LIMIT = 100;

oauthGrants.use("*", async (c, next) => {
  requireTenantAdmin(c.get("caller"), "managing OAuth grants");
  await next();
});

oauthGrants.get("/", async (c) => {
  const tenant = tenantOf(c.get("caller"), c.req.query("tenant"));
  const limitText = c.req.query("limit");
  const limit = limitText === undefined ? DEFAULT_LIMIT : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new RuntimeError("invalid_request", `limit must be an integer from 1 to ${MAX_LIMIT}`, { field: "limit" });
  const cursor = c.req.query("cursor");
  const { listTenantGrants } = await import("../oauth/grants.ts");
  return reply(c, await listTenantGrants(c.env, c.req.url, tenant, limit, cursor || undefined));
});

oauthGrants.delete("/:id", async (c) => {
  const tenant = tenantOf(c.get("caller"), c.req.query("tenant"));
  const id = c.req.param("id");
  const { revokeTenantGrant } = await import("../oauth/grants.ts");
  const revoked = /^[A-Za-z0-9_-]{1,128}$/.test(id) ? await revokeTenantGrant(c.env, c.req.url, tenant, id) : undefined;
  if (!revoked) throw new RuntimeError("not_found", `no grant ${id}`, { grant_id: id });
  return reply(c, { ...revoked, revoked: true });
});

/** The tenant whose grants are asked for: a tenant admin's own; an operator's choice. */
function tenantOf(caller: Caller, asked: string | undefined): string {
  if (roleOf(caller) === "admin") return asked || caller.tenant;
  if (asked !== undefined && asked !== caller.tenant)
    throw new RuntimeError("forbidden", "a tenant admin manages grants of its own tenant only", {
      reason: "another tenant",
      field: "tenant",
    });
  return caller.tenant;
}
