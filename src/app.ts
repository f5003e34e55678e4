/** The HTTP face: routes and the one error handler, which turns anything unexpected into `internal` (docs/contract.md#errors). */
import { Hono } from "hono";
import type { AppEnv } from "./app-env.ts";
import { authenticate } from "./auth/authenticate.ts";
import { renderMetrics } from "./audit/metrics.ts";
import { auditShards } from "./audit/shards.ts";
import { registryStub } from "./object-stubs.ts";
import { getSnapshot } from "./registry/snapshot-cache.ts";
import { CONNECT_PATH_PREFIX } from "./connect/path.ts";
import { errorBody, RuntimeError } from "./errors.ts";
import { respond, responseFormat } from "./codec/negotiate.ts";
import { admin } from "./routes/admin.ts";
import { keys } from "./routes/keys.ts";
import { audit } from "./routes/audit.ts";
import { usage } from "./routes/usage.ts";
import { approvalList, executions } from "./routes/executions.ts";
import { health } from "./routes/health.ts";
import { tools } from "./routes/tools.ts";
import { refusalResponse } from "./routes/refusal.ts";
import { upstreamAdmin } from "./routes/upstreams.ts";
import { bundleAdmin } from "./routes/bundles.ts";
import { tenantBundles } from "./routes/tenant-bundles.ts";
import { upstreamCredentials } from "./routes/upstream-credentials.ts";
import { isMcpPath, MCP_PATH, METADATA_PATH, protectedResourceMetadata } from "./mcp/resource-server.ts";
import { allowedMethods } from "./routes/allowed-methods.ts";
import { localOnly } from "./auth/local-only.ts";
import { bootstrap, BOOTSTRAP_PATH } from "./routes/bootstrap.ts";
import { chargeRequests } from "./policy/request-rate.ts";
import {
  AS_METADATA_PATH,
  AUTHORIZE_PATH,
  FORMER_AUTHORIZE_PATH,
  IDP_CALLBACK_PATH,
  isOAuthPath,
  REGISTER_PATH,
  TOKEN_PATH,
} from "./oauth/endpoints.ts";
import { loadConfig } from "./config.ts";
import { oauthGrants } from "./routes/oauth-grants.ts";

export const app = new Hono<AppEnv>();

/** The route that takes calls (and dry runs): charged by admission or by the service, not per request. */
const CALL_PATH = /^\/v1\/executions\/?$/;

// A local development stack answers this machine only: no DNS-rebinding page, no other host
// (src/auth/local-only.ts). Nothing in a deployment (LOCAL_DEVELOPMENT is never set there).
app.use("*", localOnly(isMcpPath));

// The answer's format, from Accept, before anything else (an unacceptable Accept is 406, in JSON).
app.use("*", async (c, next) => {
  // Connect, gRPC-Web, MCP and OAuth negotiate their own formats; the console's paths are pages and files.
  const path = c.req.path;
  if (!path.startsWith(CONNECT_PATH_PREFIX) && !isMcpPath(path) && !isOAuthPath(path) && !path.startsWith("/console/"))
    c.set("format", responseFormat(c.req.header("accept")));
  await next();
});

app.route("/", health);

/** A browser at the root finds the web console (static assets under /console/, wrangler.jsonc "assets"). */
app.get("/", (c) => c.redirect("/console/", 302));

/** Prometheus scrape endpoint: operators' credential (scrapers send it as a bearer token). */
app.get("/metrics", async (c) => {
  const caller = await authenticate(c.env, c.req.raw);
  c.set("caller", caller);
  await chargeRequests(c.env, caller, (p) => c.executionCtx.waitUntil(p));
  if (caller.role !== "admin")
    throw new RuntimeError("forbidden", "/metrics is for operators", { reason: "admin role required" });
  if (!c.env.AUDIT_DB) throw new RuntimeError("internal", "no AUDIT_DB database is bound");
  const [snapshot, upstreamChanges] = await Promise.all([
    getSnapshot(c.env, (p) => c.executionCtx.waitUntil(p)),
    registryStub(c.env).upstreamChanges(),
  ]);
  const body = await renderMetrics(auditShards(c.env), snapshot, Date.now(), upstreamChanges);
  return c.body(body, 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
});

// Connect, MCP and the OpenAPI document load on their first request, not with the isolate: a
// new isolate would otherwise spend most of its start-up CPU building protobuf descriptors, the
// MCP SDK's schemas and the OpenAPI document that most of its requests never use
// (docs/architecture.md#start-up-and-size). The module system keeps each one once loaded.

/** Connect and gRPC-Web (docs/contract.md#faces), authenticated like REST inside the service. */
app.all(`${CONNECT_PATH_PREFIX}*`, async (c) =>
  (await import("./connect/service.ts")).serveConnect(c.req.raw, c.env, (p) => c.executionCtx.waitUntil(p)),
);

/** MCP (Streamable HTTP, 2026-07-28 and 2025): the same tools and executions, authenticated like /v1 (src/mcp/). */
app.all(MCP_PATH, async (c) => (await import("./mcp/handler.ts")).serveMcp(c));
/** MCP with only one tool bundle's tools (docs/contract.md#bundles); the same resource as /mcp for OAuth. */
app.all(`${MCP_PATH}/:bundle`, async (c) => (await import("./mcp/handler.ts")).serveMcp(c, c.req.param("bundle")));

/** RFC 9728 protected-resource metadata for /mcp (both the root and the path-suffixed form), public. */
app.get(METADATA_PATH, (c) => c.json(protectedResourceMetadata(c.env, c.req.url)));
app.get(`${METADATA_PATH}${MCP_PATH}`, (c) => c.json(protectedResourceMetadata(c.env, c.req.url)));

/**
 * The runtime's OAuth 2.1 authorization server for /mcp (docs/oauth.md): metadata, registration
 * and tokens answered by @cloudflare/workers-oauth-provider, the consent page by src/oauth/consent.ts.
 * Their contract is OAuth's (RFC 8414, 7591, 6749, 7009), not /v1's, so they are not in the
 * OpenAPI document; each method a path does not take is refused by its handler.
 */
for (const path of [AS_METADATA_PATH, TOKEN_PATH, REGISTER_PATH])
  app.all(path, async (c) =>
    (await import("./oauth/provider.ts")).serveOAuthEndpoint(c.req.raw, c.env, c.executionCtx as ExecutionContext),
  );
/** The consent page, the one Worker page under /console/ (docs/decisions/46-consent-in-console.md). */
app.all(AUTHORIZE_PATH, async (c) =>
  (await import("./oauth/consent.ts")).serveConsent(c.req.raw, c.env, (p) => c.executionCtx.waitUntil(p)),
);
/** A client that cached the old metadata is sent on with its request whole: 308 keeps a POST a POST. */
app.all(FORMER_AUTHORIZE_PATH, (c) => c.redirect(`${AUTHORIZE_PATH}${new URL(c.req.url).search}`, 308));
/**
 * Any other /console/ path is the static assets' (wrangler.jsonc "assets" lets through to the
 * Worker only what the console's build does not hold): a file, or their 404, as if the Worker
 * were not there.
 */
app.all("/console/*", (c) => (c.env.ASSETS ? c.env.ASSETS.fetch(c.req.raw) : c.notFound()));
/**
 * Where the identity provider sends a person's browser back to the consent page
 * (docs/oauth.md#signing-in-through-the-identity-provider): a browser route, there only while
 * OAUTH_IDP_CLIENT_ID is set.
 */
app.all(IDP_CALLBACK_PATH, async (c) =>
  loadConfig(c.env).idp
    ? (await import("./oauth/idp-callback.ts")).serveIdpCallback(c.req.raw, c.env, (p) => c.executionCtx.waitUntil(p))
    : c.notFound(),
);

/** The API's OpenAPI 3.1 description, public like any API reference. */
app.get("/v1/openapi.json", async (c) => c.json((await import("./openapi/document.ts")).openApiDocument));

/** The first operator's key, once per deployment, for the BOOTSTRAP_TOKEN secret (src/routes/bootstrap.ts). */
app.post(BOOTSTRAP_PATH, bootstrap);

// Everything under /v1 needs a credential (the operations endpoints above do not), checked
// before any of the body is read (src/codec/request-body.ts); then the request takes one of its
// tenant's tokens, except a call, which its admission charges (src/policy/request-rate.ts).
app.use("/v1/*", async (c, next) => {
  const caller = await authenticate(c.env, c.req.raw);
  c.set("caller", caller);
  if (!(c.req.method === "POST" && CALL_PATH.test(c.req.path)))
    await chargeRequests(c.env, caller, (p) => c.executionCtx.waitUntil(p));
  await next();
});
app.route("/v1/tools", tools);
app.route("/v1/executions", executions);
app.route("/v1/upstreams", upstreamCredentials);
app.route("/v1/admin/upstreams", upstreamAdmin);
app.route("/v1/admin/bundles", bundleAdmin);
app.route("/v1/bundles", tenantBundles);
app.route("/v1/approvals", approvalList);
// Before the operator routes: a tenant's admin manages its own tenant's keys (src/routes/keys.ts).
app.route("/v1/admin/keys", keys);
app.route("/v1/admin", admin);
app.route("/v1/audit", audit);
app.route("/v1/usage", usage);
app.route("/v1/oauth/grants", oauthGrants);

app.notFound((c) => {
  const path = new URL(c.req.url).pathname;
  // A known path asked with a method it does not answer: 405 with the methods it does (RFC 9110 §15.5.6).
  const allow = allowedMethods(app.routes, path);
  if (allow.length > 0) {
    return respond(
      c.get("format") ?? "json",
      { error: errorBody("method_not_allowed", `${path} answers ${allow.join(", ")}, not ${c.req.method}`, { allow }) },
      405,
      { Allow: allow.join(", ") },
    );
  }
  return respond(c.get("format") ?? "json", { error: errorBody("not_found", `no route ${c.req.method} ${path}`) }, 404);
});

app.onError((err, c) => {
  if (err instanceof RuntimeError) return refusalResponse(c, err.toBody());
  // Anything else is our fault: log it whole with a reference, answer without internals.
  const ref = crypto.randomUUID();
  console.error(
    JSON.stringify({
      msg: "unhandled error",
      ref,
      path: new URL(c.req.url).pathname,
      error: String(err),
      stack: (err as Error)?.stack,
    }),
  );
  return respond(
    c.get("format") ?? "json",
    { error: errorBody("internal", "the runtime failed while handling the request", { ref }, false) },
    500,
  );
});
