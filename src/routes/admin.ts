/**
 * Registry administration (operators only): re-read manifests, change a provider's trust or
 * disable it, deprecate a tool version. Every change reaches this isolate at once, this data
 * center's edges at their next refresh, and every edge within two REGISTRY_SNAPSHOT_TTL_MS
 * (src/registry/snapshot-cache.ts).
 */
import { decodeBody, reply } from "../codec/negotiate.ts";
import { Hono, type Context, type Next } from "hono";
import type { AppEnv } from "../app-env.ts";
import { FAIL_BATCHES, FAIL_NEXT_BATCH, tenantBatchesDrill } from "../audit/consumer.ts";
import { armSendFailure, sendDrillState } from "../audit/outbox.ts";
import { loadConfig } from "../config.ts";
import { TRUST_ORDER, type Trust } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { readBody } from "../codec/request-body.ts";
import type { RegistrySnapshot } from "../registry/catalog.ts";
import { registryStub } from "../object-stubs.ts";
import { publishSnapshot } from "../registry/snapshot-cache.ts";
import { readiness } from "./health.ts";

export const admin = new Hono<AppEnv>();

/** Refuses everyone but operators (role admin; src/auth/roles.ts). */
export async function operatorsOnly(c: Context<AppEnv>, next: Next): Promise<void> {
  if (c.get("caller").role !== "admin")
    throw new RuntimeError("forbidden", "this endpoint is for operators", { reason: "admin role required" });
  await next();
}

admin.use("*", operatorsOnly);

/** What the public /readyz does not say: the check behind it, at most READY_CACHE_MS old. */
admin.get("/readiness", async (c) => reply(c, await readiness(c.env)));

admin.post("/registry/refresh", async (c) => {
  const snapshot = await registryStub(c.env).refresh();
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, summary(snapshot));
});

admin.patch("/providers/:name", async (c) => {
  const body = await objectBody(c.req.raw, c.env, ["trust", "disabled", "max_concurrency"]);
  const patch: { trust?: Trust; disabled?: boolean; max_concurrency?: number | null } = {};
  if (body.trust !== undefined) {
    if (!TRUST_ORDER.includes(body.trust as Trust))
      throw new RuntimeError("invalid_request", `trust must be one of ${TRUST_ORDER.join(", ")}`, { field: "trust" });
    patch.trust = body.trust as Trust;
  }
  if (body.disabled !== undefined) {
    if (typeof body.disabled !== "boolean")
      throw new RuntimeError("invalid_request", "disabled must be a boolean", { field: "disabled" });
    patch.disabled = body.disabled;
  }
  if (body.max_concurrency !== undefined) {
    // The most calls in flight at this provider; null goes back to its manifest's.
    const n = body.max_concurrency;
    if (n !== null && !(typeof n === "number" && Number.isSafeInteger(n) && n > 0))
      throw new RuntimeError(
        "invalid_request",
        "max_concurrency must be a positive integer, or null for the manifest's",
        { field: "max_concurrency" },
      );
    patch.max_concurrency = n as number | null;
  }
  const snapshot = await registryStub(c.env).setProvider(c.req.param("name"), patch);
  if (!snapshot)
    throw new RuntimeError("not_found", `no provider ${c.req.param("name")} is configured`, {
      provider: c.req.param("name"),
    });
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, providerView(snapshot, c.req.param("name")));
});

/** Forget what calls taught about a provider (samples, breakers, liveness): it is judged afresh. */
admin.delete("/providers/:name/health", async (c) => {
  const snapshot = await registryStub(c.env).resetHealth(c.req.param("name"));
  if (!snapshot)
    throw new RuntimeError("not_found", `no provider ${c.req.param("name")} is configured`, {
      provider: c.req.param("name"),
    });
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
  return reply(c, providerView(snapshot, c.req.param("name")));
});

admin.put("/tools/:name/versions/:version/deprecation", async (c) => {
  const body = await objectBody(c.req.raw, c.env, ["sunset", "replacement"]);
  if (typeof body.sunset !== "string" || Number.isNaN(Date.parse(body.sunset))) {
    throw new RuntimeError("invalid_request", "sunset must be an ISO 8601 date-time", { field: "sunset" });
  }
  if (body.replacement !== undefined && body.replacement !== null && typeof body.replacement !== "string") {
    throw new RuntimeError("invalid_request", "replacement must name a tool (name or name@version)", {
      field: "replacement",
    });
  }
  if (typeof body.replacement === "string")
    await checkReplacement(c.env, c.req.param("name"), c.req.param("version"), body.replacement);
  const notice = {
    sunset: new Date(body.sunset).toISOString(),
    replacement: (body.replacement as string | undefined) ?? null,
    deprecated_at: new Date().toISOString(),
  };
  return deprecation(c, c.req.param("name"), c.req.param("version"), notice).then((v) => reply(c, v));
});

admin.delete("/tools/:name/versions/:version/deprecation", async (c) => {
  return deprecation(c, c.req.param("name"), c.req.param("version"), null).then((v) => reply(c, v));
});

/** An operator's drill: the audit consumer fails its next batch halfway; nothing may be lost or doubled. */
admin.post("/audit/drill/fail-next-batch", async (c) => {
  const db = auditDb(c.env);
  await db.prepare("INSERT OR IGNORE INTO drills (name) VALUES (?)").bind(FAIL_NEXT_BATCH).run();
  return reply(c, { armed: FAIL_NEXT_BATCH });
});

/**
 * An operator's drill: the audit consumer fails its next `count` batches before writing
 * anything — or, with `tenant`, hands back the next `count` deliveries of that tenant's records
 * and writes everyone else's. Past the queue's max_retries a message goes to the dead letter
 * queue, whose consumer (src/audit/dead-letters.ts) must still write every record once.
 */
admin.post("/audit/drill/fail-batches", async (c) => {
  const { count, tenant } = await objectBody(c.req.raw, c.env, ["count", "tenant"]);
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 1 || count > 100)
    throw new RuntimeError("invalid_request", "count must be an integer from 1 to 100", { field: "count" });
  if (tenant !== undefined && (typeof tenant !== "string" || tenant.length === 0 || tenant.length > 200))
    throw new RuntimeError("invalid_request", "tenant must be a tenant id", { field: "tenant" });
  const db = auditDb(c.env);
  const name = tenant === undefined ? FAIL_BATCHES : tenantBatchesDrill(tenant);
  await db
    .prepare(
      "INSERT INTO drill_counts (name, remaining) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET remaining = excluded.remaining",
    )
    .bind(name, count)
    .run();
  return reply(c, { armed: FAIL_BATCHES, count, ...(tenant === undefined ? {} : { tenant }) });
});

export function auditDb(env: Env): D1Database {
  if (!env.AUDIT_DB) throw new RuntimeError("internal", "no AUDIT_DB database is bound");
  return env.AUDIT_DB;
}

/**
 * An operator's drill: the next `count` audit sends of the isolate that serves this request
 * fail (default 1), as a full or broken queue would make them; the durable outbox must still
 * deliver every record once (src/audit/outbox.ts).
 */
admin.post("/audit/drill/fail-next-send", async (c) => {
  const body =
    c.req.header("content-length") === "0" || !c.req.raw.body ? {} : await objectBody(c.req.raw, c.env, ["count"]);
  const count = body.count ?? 1;
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 1 || count > 100)
    throw new RuntimeError("invalid_request", "count must be an integer from 1 to 100", { field: "count" });
  armSendFailure(count);
  return reply(c, { armed: "fail_next_audit_send", count });
});

/**
 * What the drills have done, so a drill can be seen to have happened: whether the batch drill
 * is still armed, how often it fired and the last batch it failed (from the audit database);
 * the send drill's failures still armed and made so far (in the isolate serving this request);
 * the deliveries the fail-batches drill has still to fail, everyone's and each tenant's.
 */
admin.get("/audit/drills", async (c) => {
  const db = auditDb(c.env);
  const [armed, fired, counts] = await db.batch<Record<string, unknown>>([
    db.prepare("SELECT COUNT(*) AS n FROM drills WHERE name = ?").bind(FAIL_NEXT_BATCH),
    db.prepare("SELECT fired, last_batch_size, last_written FROM drills_fired WHERE name = ?").bind(FAIL_NEXT_BATCH),
    db.prepare("SELECT name, remaining FROM drill_counts WHERE remaining > 0 ORDER BY name"),
  ]);
  const last = fired.results[0];
  // The fail-batches drill's deliveries still to fail: everyone's, and each tenant's.
  const tenants: Record<string, number> = {};
  let everyone = 0;
  for (const row of counts.results) {
    const name = String(row.name);
    if (name === FAIL_BATCHES) everyone = Number(row.remaining);
    else if (name.startsWith(`${FAIL_BATCHES}:`)) tenants[name.slice(FAIL_BATCHES.length + 1)] = Number(row.remaining);
  }
  return reply(c, {
    fail_next_batch: {
      armed: Number(armed.results[0]?.n ?? 0) > 0,
      fired: Number(last?.fired ?? 0),
      last_batch_size: last ? Number(last.last_batch_size) : null,
      last_written: last ? Number(last.last_written) : null,
    },
    fail_next_send: sendDrillState(),
    fail_batches: { armed: everyone, tenants },
  });
});

/**
 * A replacement is where callers are sent (`Link: rel="successor-version"`, `details.replacement`
 * of `tool_deprecated`): it must name a tool the registry has, and the version when one is
 * given, and not the deprecated version itself.
 */
async function checkReplacement(env: Env, tool: string, version: string, replacement: string): Promise<void> {
  const at = replacement.indexOf("@");
  const [name, wanted] = at < 0 ? [replacement, undefined] : [replacement.slice(0, at), replacement.slice(at + 1)];
  const refuse = (message: string, details: Record<string, unknown> = {}) => {
    throw new RuntimeError("invalid_request", message, { field: "replacement", replacement, ...details });
  };
  if (name === "" || wanted === "") refuse("replacement must name a tool: name or name@version");
  const known = (await registryStub(env).snapshot()).tools[name];
  if (!known) refuse(`replacement ${JSON.stringify(replacement)} names no tool the registry has`);
  if (wanted !== undefined && !known.versions[wanted]) {
    refuse(`replacement ${JSON.stringify(replacement)}: ${name} has no version ${wanted}`, {
      available_versions: Object.keys(known.versions),
    });
  }
  if (name === tool && wanted === version) refuse("a version cannot be its own replacement");
}

async function deprecation(
  c: Context<AppEnv>,
  tool: string,
  version: string,
  notice: Parameters<ReturnType<typeof registryStub>["deprecate"]>[2],
) {
  const snapshot = await registryStub(c.env).deprecate(tool, version, notice);
  if (!snapshot) throw new RuntimeError("tool_not_found", `no tool ${tool}@${version}`, { tool, version });
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
  return {
    tool,
    version,
    deprecation: snapshot.deprecations[`${tool}@${version}`] ?? null,
    active_version: snapshot.tools[tool].active_version,
  };
}

export async function objectBody(request: Request, env: Env, fields: string[]): Promise<Record<string, unknown>> {
  const value = decodeBody(
    await readBody(request, loadConfig(env).maxRequestBytes),
    request.headers.get("content-type"),
  );
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new RuntimeError("invalid_request", "body must be a JSON object");
  for (const key of Object.keys(value)) {
    if (!fields.includes(key))
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  }
  return value as Record<string, unknown>;
}

/**
 * The provider as the snapshot shows it: the answer the OpenAPI document promises (`Provider`).
 * A configured provider is in every snapshot built from a load; one missing is the registry's
 * fault, never an empty 200.
 */
function providerView(snapshot: RegistrySnapshot, name: string) {
  const provider = snapshot.providers.find((p) => p.name === name);
  if (!provider)
    throw new RuntimeError(
      "internal",
      `the registry's snapshot (version ${snapshot.version}) does not show provider ${name}`,
      { provider: name },
    );
  return provider;
}

function summary(s: RegistrySnapshot) {
  return {
    registry_version: s.version,
    providers: s.providers,
    problems: s.problems,
    tools: Object.keys(s.tools).length,
  };
}
