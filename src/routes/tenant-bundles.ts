/**
 * A tenant's own tool bundles (docs/contract.md#bundles): `GET /v1/bundles`, and
 * `GET`/`PUT`/`DELETE /v1/bundles/{name}`, the same bodies as the operators' (src/routes/bundles.ts).
 * A tenant admin manages its own tenant's only; an operator any tenant's, named by `?tenant=`
 * (its own key's tenant by default). Anyone else is refused (src/auth/roles.ts). Each change is
 * published like the operators' bundles, so `/mcp/{name}` serves it at once on this isolate.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { requireTenantAdmin, roleOf } from "../auth/roles.ts";
import { reply } from "../codec/negotiate.ts";
import type { Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { registryStub } from "../object-stubs.ts";
import { BUNDLE_FIELDS, parseBundle } from "../registry/bundles.ts";
import { publishSnapshot } from "../registry/snapshot-cache.ts";
import { objectBody } from "./admin.ts";

export const tenantBundles = new Hono<AppEnv>();

tenantBundles.use("*", async (c, next) => {
  requireTenantAdmin(c.get("caller"), "managing the tenant's bundles");
  await next();
});

tenantBundles.get("/", async (c) => {
  const tenant = tenantOf(c.get("caller"), c.req.query("tenant"));
  return reply(c, { bundles: await registryStub(c.env).tenantBundles(tenant) });
});

tenantBundles.get("/:name", async (c) => {
  const tenant = tenantOf(c.get("caller"), c.req.query("tenant"));
  const name = c.req.param("name");
  const bundle = (await registryStub(c.env).tenantBundles(tenant)).find((b) => b.name === name);
  if (!bundle) throw notFound(name);
  return reply(c, bundle);
});

/** Creates the tenant's bundle (201) or replaces it whole (200). */
tenantBundles.put("/:name", async (c) => {
  const tenant = tenantOf(c.get("caller"), c.req.query("tenant"));
  const body = await objectBody(c.req.raw, c.env, BUNDLE_FIELDS);
  const bundle = parseBundle(c.req.param("name"), body, Date.now());
  const outcome = await registryStub(c.env).putTenantBundle(tenant, bundle);
  if (!outcome.ok)
    throw new RuntimeError(outcome.error.code, outcome.error.message, outcome.error.details, outcome.error.retryable);
  publishSnapshot(c.env, outcome.value.snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, bundle, outcome.value.created ? 201 : 200);
});

tenantBundles.delete("/:name", async (c) => {
  const tenant = tenantOf(c.get("caller"), c.req.query("tenant"));
  const name = c.req.param("name");
  const snapshot = await registryStub(c.env).removeTenantBundle(tenant, name);
  if (!snapshot) throw notFound(name);
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, { name, deleted: true });
});

/** The tenant whose bundles are asked for: a tenant admin's own; an operator's choice. */
function tenantOf(caller: Caller, asked: string | undefined): string {
  if (roleOf(caller) === "admin") {
    if (asked !== undefined && !/^[A-Za-z0-9._:-]{1,128}$/.test(asked))
      throw new RuntimeError("invalid_request", "tenant must be 1-128 of A-Z a-z 0-9 . _ : -", { field: "tenant" });
    return asked || caller.tenant;
  }
  if (asked !== undefined && asked !== caller.tenant)
    throw new RuntimeError("forbidden", "a tenant admin manages bundles of its own tenant only", {
      reason: "another tenant",
      field: "tenant",
    });
  return caller.tenant;
}

function notFound(name: string): RuntimeError {
  return new RuntimeError("not_found", `no bundle ${name}`, { bundle: name });
}
