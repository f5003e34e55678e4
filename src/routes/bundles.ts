/**
 * Tool bundles, for operators (docs/contract.md#bundles): `GET /v1/admin/bundles`, and
 * `GET`/`PUT`/`DELETE /v1/admin/bundles/{name}`. A bundle is kept by the registry object and
 * travels in its snapshot; every change is published like the registry admin's
 * (src/routes/admin.ts), so this isolate serves `/mcp/{name}` from it at once and every edge
 * within two REGISTRY_SNAPSHOT_TTL_MS (src/registry/snapshot-cache.ts).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { reply } from "../codec/negotiate.ts";
import { RuntimeError } from "../errors.ts";
import { registryStub } from "../object-stubs.ts";
import { BUNDLE_FIELDS, parseBundle, type Bundle } from "../registry/bundles.ts";
import { publishSnapshot } from "../registry/snapshot-cache.ts";
import { objectBody, operatorsOnly } from "./admin.ts";

export const bundleAdmin = new Hono<AppEnv>();

bundleAdmin.use("*", operatorsOnly);

bundleAdmin.get("/", async (c) => reply(c, { bundles: await registryStub(c.env).bundles() }));

bundleAdmin.get("/:name", async (c) => {
  const name = c.req.param("name");
  return reply(
    c,
    found(
      (await registryStub(c.env).bundles()).find((b) => b.name === name),
      name,
    ),
  );
});

/** Creates the bundle (201) or replaces it whole (200). */
bundleAdmin.put("/:name", async (c) => {
  const body = await objectBody(c.req.raw, c.env, BUNDLE_FIELDS);
  const bundle = parseBundle(c.req.param("name"), body, Date.now());
  const outcome = await registryStub(c.env).putBundle(bundle);
  if (!outcome.ok)
    throw new RuntimeError(outcome.error.code, outcome.error.message, outcome.error.details, outcome.error.retryable);
  publishSnapshot(c.env, outcome.value.snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, bundle, outcome.value.created ? 201 : 200);
});

bundleAdmin.delete("/:name", async (c) => {
  const name = c.req.param("name");
  const snapshot = await registryStub(c.env).removeBundle(name);
  if (!snapshot) throw notFound(name);
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, { name, deleted: true });
});

function found(bundle: Bundle | undefined, name: string): Bundle {
  if (!bundle) throw notFound(name);
  return bundle;
}

function notFound(name: string): RuntimeError {
  return new RuntimeError("not_found", `no bundle ${name}`, { bundle: name });
}
