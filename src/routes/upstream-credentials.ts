/**
 * A tenant's own token for an upstream MCP server (docs/contract.md#upstreams): stored encrypted, used
 * for that tenant's calls to that upstream only, never answered back (these routes say only
 * whether one is stored, and since when). Only for upstreams registered with
 * `tenant_credentials: true` and reachable through the caller's channels; any other name
 * answers like an unknown one. The token serves every agent of the tenant, so only the
 * tenant's admins (role tenant_admin) and operators set or delete it (src/auth/roles.ts); any
 * agent that reaches the upstream may see whether one is stored. A token is sealed for the
 * upstream's address as registered now (src/upstreams/credentials.ts): registered again
 * elsewhere, the name needs a new token.
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { decodeBody, reply } from "../codec/negotiate.ts";
import type { Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { requireTenantAdmin } from "../auth/roles.ts";
import { loadConfig } from "../config.ts";
import { readBody } from "../codec/request-body.ts";
import { credentialStub, registryStub } from "../object-stubs.ts";
import { checkToken, openToken, sealToken, tokenKey, type TokenUpstream } from "../upstreams/credentials.ts";

export const upstreamCredentials = new Hono<AppEnv>();

upstreamCredentials.get("/:name/credential", async (c) => {
  const tenant = c.get("caller").tenant;
  const upstream = await takesTenantTokens(c.env, c.get("caller"), c.req.param("name"));
  const sealed = await credentialStub(c.env, tenant).get(upstream.name);
  // Usable: it opens for the upstream as registered now (not one that had its name before, not under a key that is gone).
  const key = sealed ? await tokenKey(c.env).catch(() => undefined) : undefined;
  const usable = sealed !== null && key !== undefined && (await openToken(key, tenant, upstream, sealed)) !== undefined;
  return reply(c, state(upstream.name, sealed, usable));
});

upstreamCredentials.put("/:name/credential", async (c) => {
  const caller = c.get("caller");
  // The body is read and its type checked first (a form body is 415 on every route), then the
  // caller's role, then the upstream is looked up.
  const body = decodeBody(
    await readBody(c.req.raw, loadConfig(c.env).maxRequestBytes),
    c.req.header("content-type") ?? null,
  );
  requireTenantAdmin(caller, "setting an upstream token");
  const upstream = await takesTenantTokens(c.env, caller, c.req.param("name"));
  const name = upstream.name;
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new RuntimeError("invalid_request", "body must be a JSON object {token}");
  for (const key of Object.keys(body))
    if (key !== "token")
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  const token = (body as { token?: unknown }).token;
  const problem = checkToken(token);
  if (problem) throw new RuntimeError("invalid_request", problem, { field: "token" });
  const key = await tokenKey(c.env);
  // Never stored in clear: without the key there is nowhere safe to put it.
  if (!key)
    throw new RuntimeError(
      "forbidden",
      "this runtime has no key to encrypt tokens with, so it stores none (operators: set the UPSTREAM_TOKEN_KEY secret)",
      { reason: "no_token_key" },
    );
  const sealed = await sealToken(key, caller.tenant, upstream, token as string);
  const store = credentialStub(c.env, caller.tenant);
  await store.put(name, sealed);
  return reply(c, state(name, { updated_at: sealed.updated_at }, true));
});

upstreamCredentials.delete("/:name/credential", async (c) => {
  requireTenantAdmin(c.get("caller"), "deleting an upstream token");
  const { name } = await takesTenantTokens(c.env, c.get("caller"), c.req.param("name"));
  await credentialStub(c.env, c.get("caller").tenant).delete(name);
  return reply(c, state(name, null, false));
});

function state(upstream: string, info: { updated_at: number } | null, usable: boolean) {
  return { upstream, stored: info !== null, usable, updated_at: info ? new Date(info.updated_at).toISOString() : null };
}

/** The upstream (its name and address), if this caller may keep a token for it; otherwise `not_found`, as for an unknown one. */
async function takesTenantTokens(env: Env, caller: Caller, name: string): Promise<TokenUpstream> {
  const reachable = caller.channels.includes("*") || caller.channels.includes(name);
  const upstream = reachable ? await registryStub(env).upstream(name) : undefined;
  if (!upstream || !upstream.tenant_credentials)
    throw new RuntimeError("not_found", `no upstream ${name} takes tenant tokens`, { upstream: name });
  return {
    name: upstream.name,
    ...(upstream.url !== null ? { url: upstream.url } : {}),
    ...(upstream.binding !== null ? { binding: upstream.binding } : {}),
  };
}
