/**
 * `POST /v1/admin/bootstrap`: a fresh deployment's first operator key, without a hand-made
 * record. Operators mint keys (`POST /v1/admin/keys`), so the first operator needs another
 * way in: the `BOOTSTRAP_TOKEN` Worker secret (at least 32 characters), presented once.
 *
 *   - no BOOTSTRAP_TOKEN configured → 404 `not_found`, as if the route did not exist
 *   - a Content-Type it cannot read → 415 `unsupported_media_type`
 *   - used before, by anyone, with any token → 403 `forbidden` (`details.reason: "bootstrap_used"`)
 *   - a wrong token → 401 `unauthenticated`
 *   - otherwise → 201 with a new key (role admin, every channel), shown this once
 *
 * "Once" is worldwide: the first claim of a row in the registry object (strongly consistent,
 * durable-objects/bootstrap-claim.ts) decides, never KV. The key is written before the claim,
 * so a claim never burns the bootstrap without a usable key; a request that loses the claim
 * erases the key it wrote, which nobody has seen. The token is compared in constant time and
 * before any storage is read; a wrong token costs one small read of the registry object (to tell
 * 401 from 403) until this isolate has seen the bootstrap used, and none after.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { ApiKeyStore } from "../auth/api-keys.ts";
import { decodeBody, reply, requestFormat } from "../codec/negotiate.ts";
import { readBody } from "../codec/request-body.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { registryStub } from "../object-stubs.ts";

export const BOOTSTRAP_PATH = "/v1/admin/bootstrap";

/** The identity the bootstrap key gets when the body names none. */
export const BOOTSTRAP_DEFAULTS = { tenant: "ops", agent: "operator" } as const;

/** Once used, always used: an isolate that has seen it answers later attempts without I/O. */
let seenUsed = false;

export async function bootstrap(c: Context<AppEnv>): Promise<Response> {
  const token = loadConfig(c.env).bootstrapToken;
  if (token === undefined) throw new RuntimeError("not_found", `no route POST ${BOOTSTRAP_PATH}`);
  // A body this route could never read is refused before anything else, as on every route
  // (415 names the media types it takes); the header alone decides, no byte is read.
  requestFormat(c.req.header("content-type"));
  const presented = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(c.req.header("authorization") ?? "")?.[1];
  const right = presented !== undefined && (await sameSecret(presented, token));
  if (seenUsed) throw alreadyUsed();
  const registry = registryStub(c.env);
  if (await registry.bootstrapUsed()) throw alreadyUsed();
  if (!right) throw new RuntimeError("unauthenticated", "missing or invalid bootstrap token");

  const { tenant, agent } = await identity(c.req.raw, c.env);
  if (!c.env.API_KEYS) throw new RuntimeError("internal", "no API_KEYS namespace is bound");
  const keys = new ApiKeyStore(c.env.API_KEYS);
  // An operator's key as local development's DEV_ADMIN has it: every channel, no capabilities
  // (operators administer; they call tools with tenants' keys).
  const { key, record } = await keys.create({ tenant, agent, capabilities: [], channels: ["*"], role: "admin" });
  if (!(await registry.claimBootstrap({ key_id: record.key_id, tenant, agent, used_at: Date.now() }))) {
    await keys.discard(key, record.key_id);
    throw alreadyUsed();
  }
  console.log(JSON.stringify({ msg: "operator bootstrap used", key_id: record.key_id, tenant, agent }));
  return reply(c, { key, ...record }, 201);
}

function alreadyUsed(): RuntimeError {
  seenUsed = true;
  return new RuntimeError(
    "forbidden",
    "the operator bootstrap was already used; more keys are minted with an operator's key: POST /v1/admin/keys (role admin for another operator)",
    { reason: "bootstrap_used" },
  );
}

/**
 * Equal in constant time: both sides hashed to 32 bytes first, then every byte compared, so
 * neither length nor content shows in the timing. (Written out rather than workerd's
 * `crypto.subtle.timingSafeEqual`, which the Node-side type check of this module does not know.)
 */
export async function sameSecret(a: string, b: string): Promise<boolean> {
  const digest = async (s: string) =>
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(s)));
  const [x, y] = await Promise.all([digest(a), digest(b)]);
  let diff = 0;
  for (let i = 0; i < x.length; i++) diff |= x[i] ^ y[i];
  return diff === 0;
}

/** `{"tenant", "agent"}`, both optional, as `POST /v1/admin/keys` spells them; no body: the defaults. */
async function identity(request: Request, env: Env): Promise<{ tenant: string; agent: string }> {
  const bytes = await readBody(request, loadConfig(env).maxRequestBytes);
  if (bytes.byteLength === 0) return { ...BOOTSTRAP_DEFAULTS };
  const body = decodeBody(bytes, request.headers.get("content-type"));
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new RuntimeError("invalid_request", "body must be a JSON object");
  const fields = body as Record<string, unknown>;
  for (const name of Object.keys(fields))
    if (name !== "tenant" && name !== "agent")
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(name)}`, { field: name });
  const str = (name: "tenant" | "agent") => {
    const v = fields[name] ?? BOOTSTRAP_DEFAULTS[name];
    if (typeof v !== "string" || !/^[A-Za-z0-9._:-]{1,128}$/.test(v))
      throw new RuntimeError("invalid_request", `${name} must be 1-128 of A-Z a-z 0-9 . _ : -`, { field: name });
    return v;
  };
  return { tenant: str("tenant"), agent: str("agent") };
}
