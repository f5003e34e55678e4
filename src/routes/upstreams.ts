/**
 * Upstream MCP servers, for operators: register one (its tools join the registry at
 * once), look at what it serves and at definitions that changed since they were approved (with
 * their diffs), approve or reject a change by its hash, list it again, remove it. Every change is
 * published like the registry admin's (src/routes/admin.ts): this isolate takes the new snapshot
 * at once and the data center's cached copy is replaced, so this data center's edges see it at
 * their next refresh and every edge within two REGISTRY_SNAPSHOT_TTL_MS
 * (src/registry/snapshot-cache.ts).
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { decodeBody, reply } from "../codec/negotiate.ts";
import type { Outcome } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { loadConfig } from "../config.ts";
import { readBody } from "../codec/request-body.ts";
import { registryStub } from "../object-stubs.ts";
import { publishSnapshot } from "../registry/snapshot-cache.ts";
import { operatorsOnly } from "./admin.ts";

export const upstreamAdmin = new Hono<AppEnv>();

upstreamAdmin.use("*", operatorsOnly);

upstreamAdmin.get("/", async (c) => reply(c, { upstreams: await registryStub(c.env).upstreams() }));

upstreamAdmin.post("/", async (c) => {
  const body = await jsonObject(c.req.raw, c.env);
  const registered = unwrap(await registryStub(c.env).registerUpstream(body as never));
  await publish(c);
  return reply(c, registered, 201);
});

upstreamAdmin.get("/:name", async (c) =>
  reply(c, found(await registryStub(c.env).upstream(c.req.param("name")), c.req.param("name"))),
);

upstreamAdmin.delete("/:name", async (c) => {
  const removed = unwrap(await registryStub(c.env).removeUpstream(c.req.param("name")));
  await publish(c);
  return reply(c, removed);
});

/** Lists it again now (and so reloads the catalog), rather than at the next MANIFEST_REFRESH_MS. */
upstreamAdmin.post("/:name/refresh", async (c) => {
  const view = found(await registryStub(c.env).refreshUpstream(c.req.param("name")), c.req.param("name"));
  await publish(c);
  return reply(c, view);
});

/** Approves the changed definition of a tool, named by the hash the operator reviewed. */
upstreamAdmin.post("/:name/tools/:tool/approve", async (c) => {
  const body = await decisionBody(c, ["hash"]);
  const view = unwrap(
    await registryStub(c.env).approveUpstreamChange(c.req.param("name"), c.req.param("tool"), body.hash),
  );
  await publish(c);
  return reply(c, view);
});

/**
 * Rejects the changed definition of a tool, named by the hash the operator reviewed: what served
 * before serves on, and that hash is not raised again. Nothing served changes, so nothing is
 * published.
 */
upstreamAdmin.post("/:name/tools/:tool/reject", async (c) => {
  const body = await decisionBody(c, ["hash", "reason"]);
  if (body.reason !== undefined && (typeof body.reason !== "string" || body.reason.length > 1000))
    throw new RuntimeError("invalid_request", "reason must be a string of at most 1000 characters", {
      field: "reason",
    });
  const reason = typeof body.reason === "string" && body.reason.trim() !== "" ? body.reason.trim() : null;
  const caller = c.get("caller");
  return reply(
    c,
    unwrap(
      await registryStub(c.env).rejectUpstreamChange(
        c.req.param("name"),
        c.req.param("tool"),
        body.hash,
        `${caller.tenant}/${caller.agent}`,
        reason,
      ),
    ),
  );
});

/**
 * After a change: the registry's snapshot, published. Dropping only this isolate's copy (as
 * before the data center tier existed) is not enough: the next read would take the data
 * center's entry, still without the change, and a just-registered upstream's tools would be
 * tool_not_found for up to two TTLs.
 */
async function publish(c: Context<AppEnv>): Promise<void> {
  const snapshot = await registryStub(c.env).snapshot();
  publishSnapshot(c.env, snapshot, (p) => c.executionCtx.waitUntil(p));
}

function found<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new RuntimeError("not_found", `no upstream ${name}`, { upstream: name });
  return value;
}

function unwrap<T>(outcome: Outcome<T>): T {
  if (!outcome.ok)
    throw new RuntimeError(outcome.error.code, outcome.error.message, outcome.error.details, outcome.error.retryable);
  return outcome.value;
}

/** The body of approve and reject: the reviewed hash, and only the fields named. */
async function decisionBody(c: Context<AppEnv>, fields: string[]): Promise<Record<string, unknown> & { hash: string }> {
  const body = await jsonObject(c.req.raw, c.env);
  for (const key of Object.keys(body))
    if (!fields.includes(key))
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  if (typeof body.hash !== "string" || !/^[0-9a-f]{64}$/.test(body.hash))
    throw new RuntimeError(
      "invalid_request",
      "hash must be the new definition's hash (64 hex digits), as the change lists it",
      { field: "hash" },
    );
  return { ...body, hash: body.hash };
}

async function jsonObject(request: Request, env: Env): Promise<Record<string, unknown>> {
  const value = decodeBody(
    await readBody(request, loadConfig(env).maxRequestBytes),
    request.headers.get("content-type"),
  );
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new RuntimeError("invalid_request", "body must be a JSON object");
  return value as Record<string, unknown>;
}
