/**
 * API keys: `POST/GET /v1/admin/keys`, `DELETE /v1/admin/keys/{id}`. The key itself is in the
 * creation answer only. Operators manage every tenant's keys, of any role. A tenant's admin
 * (role tenant_admin) manages its own tenant's keys only, and never an operator's: it cannot
 * make one, does not see one, and revoking one answers like an unknown id. Anyone else is
 * refused (src/auth/roles.ts).
 */
import { Hono } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiKeyStore } from "../auth/api-keys.ts";
import { parseRole, requireTenantAdmin, roleOf } from "../auth/roles.ts";
import { reply } from "../codec/negotiate.ts";
import type { ApiKeyRecord, Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { registryStub } from "../object-stubs.ts";
import { isBundleName } from "../registry/bundles.ts";
import { objectBody } from "./admin.ts";

export const keys = new Hono<AppEnv>();

/** The most bundles one key may be limited to: the key's record is also its KV metadata, at most 1,024 bytes. */
const MAX_KEY_BUNDLES = 8;

/** The roles a key may be made with; "tenant" is the agent role's old name. */
const KEY_ROLES = new Set(["agent", "tenant", "tenant_admin", "approver", "admin"]);

keys.use("*", async (c, next) => {
  requireTenantAdmin(c.get("caller"), "managing API keys");
  await next();
});

keys.post("/", async (c) => {
  const caller = c.get("caller");
  const body = await objectBody(c.req.raw, c.env, ["tenant", "agent", "capabilities", "channels", "role", "bundles"]);
  const str = (f: string) => {
    const v = body[f];
    if (typeof v !== "string" || !/^[A-Za-z0-9._:-]{1,128}$/.test(v))
      throw new RuntimeError("invalid_request", `${f} must be 1-128 of A-Z a-z 0-9 . _ : -`, { field: f });
    return v;
  };
  const list = (f: string, fallback: string[]) => {
    const v = body[f] ?? fallback;
    if (!Array.isArray(v) || !v.every((x) => typeof x === "string" && x.length > 0 && x.length <= 256))
      throw new RuntimeError("invalid_request", `${f} must be a list of strings`, { field: f });
    return v as string[];
  };
  if (body.role !== undefined && !KEY_ROLES.has(body.role as string))
    throw new RuntimeError(
      "invalid_request",
      'role must be "agent", "tenant_admin", "approver" or "admin" ("tenant" is read as "agent")',
      { field: "role" },
    );
  const role = parseRole(body.role);
  const tenant = str("tenant");
  if (!isOperator(caller)) {
    if (tenant !== caller.tenant)
      throw new RuntimeError("forbidden", "a tenant admin makes keys of its own tenant only", {
        reason: "another tenant",
        field: "tenant",
      });
    if (role === "admin")
      throw new RuntimeError("forbidden", "only operators make operators' keys", {
        reason: "admin role required",
        field: "role",
      });
  }
  const bundles = body.bundles === undefined ? undefined : await keyBundles(c.env, tenant, body.bundles);
  // Least privilege: a key reaches the providers and holds the capabilities it is given, none by default.
  const { key, record } = await keyStore(c.env).create({
    tenant,
    agent: str("agent"),
    capabilities: list("capabilities", []),
    channels: list("channels", []),
    role,
    ...(bundles ? { bundles } : {}),
  });
  return reply(c, { key, ...record }, 201);
});

keys.get("/", async (c) => {
  const caller = c.get("caller");
  const asked = c.req.query("tenant");
  if (isOperator(caller)) return reply(c, { keys: await keyStore(c.env).list(asked) });
  if (asked !== undefined && asked !== caller.tenant)
    throw new RuntimeError("forbidden", "a tenant admin lists keys of its own tenant only", {
      reason: "another tenant",
      field: "tenant",
    });
  return reply(c, { keys: (await keyStore(c.env).list(caller.tenant)).filter(visibleToTenantAdmin) });
});

keys.delete("/:id", async (c) => {
  const caller = c.get("caller");
  const store = keyStore(c.env);
  const id = c.req.param("id");
  if (!isOperator(caller)) {
    // Another tenant's key, and an operator's, answer like an unknown one.
    const known = (await store.list(caller.tenant)).find((k) => k.key_id === id);
    if (!known || !visibleToTenantAdmin(known)) throw notFound(id);
  }
  const revoked = await store.revoke(id);
  if (!revoked) throw notFound(id);
  return reply(c, revoked);
});

/**
 * A key's bundles (docs/contract.md#bundles): 1 to MAX_KEY_BUNDLES names of bundles that exist
 * now (a typo would leave the key seeing nothing). One deleted later narrows the key's view to
 * the others; a key with none left lists no tools over MCP.
 */
async function keyBundles(env: Env, tenant: string, value: unknown): Promise<string[]> {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > MAX_KEY_BUNDLES ||
    !value.every((v) => typeof v === "string" && isBundleName(v))
  )
    throw new RuntimeError("invalid_request", `bundles must be a list of 1 to ${MAX_KEY_BUNDLES} bundle names`, {
      field: "bundles",
    });
  // The tenant's own bundles and the operators' (docs/contract.md#bundles); another tenant's are unknown here.
  const stub = registryStub(env);
  const known = new Set([...(await stub.bundles()), ...(await stub.tenantBundles(tenant))].map((b) => b.name));
  const unknown = (value as string[]).filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw new RuntimeError("invalid_request", `no bundle ${unknown.join(", ")}`, { field: "bundles", unknown });
  return [...new Set(value as string[])].sort();
}

function isOperator(caller: Caller): boolean {
  return roleOf(caller) === "admin";
}

function visibleToTenantAdmin(record: ApiKeyRecord): boolean {
  return parseRole(record.role) !== "admin";
}

function notFound(id: string): RuntimeError {
  return new RuntimeError("not_found", `no key ${id}`, { key_id: id });
}

function keyStore(env: Env): ApiKeyStore {
  if (!env.API_KEYS) throw new RuntimeError("internal", "no API_KEYS namespace is bound");
  return new ApiKeyStore(env.API_KEYS);
}
