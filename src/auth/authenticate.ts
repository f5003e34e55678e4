/**
 * Who is calling (docs/contract.md#initiation: the caller id is set by the runtime, never by the caller's
 * body). Every HTTPS call carries `Authorization: Bearer <credential>`: an API key
 * (`trt_…`) or a JWT; on `/mcp`, also an access token of the runtime's own OAuth server (docs/oauth.md). Behind Cloudflare Access, with JWT_CF_ACCESS_HEADER=true, a request
 * without an Authorization header may instead carry the JWT that Access adds to every request
 * it lets through (`Cf-Access-Jwt-Assertion`), verified exactly like a Bearer JWT: same keys,
 * issuer and audience, so the header is worth nothing without Access's signature. Any failure is `unauthenticated` with the same message, so the answer
 * never says which part of a credential was wrong.
 */
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import type { Caller } from "../contract.ts";
import { API_KEY_PREFIX, ApiKeyStore, callerOfKey, hashKey } from "./api-keys.ts";
import { verifyJwt, type JwtConfig } from "./jwt.ts";
import { countFailure, refuseIfBlocked } from "./auth-limiter.ts";
import { isLocalRequest, type RequestFacts } from "./local-only.ts";
import { isMcpPath } from "../mcp/resource-server.ts";
import { isOAuthAccessToken } from "../oauth/endpoints.ts";

const REFUSED = "missing or invalid credentials";

/** The header Cloudflare Access adds to each request it lets through, holding its signed JWT. */
export const CF_ACCESS_HEADER = "cf-access-jwt-assertion";

/**
 * The caller of `request` (its Authorization header; its Host and address for the well-known
 * keys). An address with too many failed credentials is refused before the key store is read
 * (src/auth/auth-limiter.ts).
 */
export async function authenticate(env: Env, request: RequestFacts): Promise<Caller> {
  refuseIfBlocked(request);
  try {
    return await identify(env, request);
  } catch (err) {
    if (err instanceof RuntimeError && err.code === "unauthenticated") throw await countFailure(env, request, err);
    throw err;
  }
}

async function identify(env: Env, request: RequestFacts): Promise<Caller> {
  const authorization = request.headers.get("authorization");
  const assertion = request.headers.get(CF_ACCESS_HEADER);
  if (authorization === null && assertion !== null) {
    const jwt = loadConfig(env).jwt;
    if (jwt?.cfAccessHeader && /^[\x21-\x7e]{1,8192}$/.test(assertion)) return jwtCaller(assertion, jwt);
    throw unauthenticated();
  }
  const match = /^Bearer ([\x21-\x7e]{1,4096})$/.exec(request.headers.get("authorization") ?? "");
  if (!match) throw unauthenticated();
  const credential = match[1];
  const config = loadConfig(env);

  if (isOAuthAccessToken(credential)) {
    // The runtime's own OAuth access tokens (docs/oauth.md) are for /mcp only, their audience;
    // the library that reads them loads with the first one (docs/architecture.md#start-up-and-size).
    if (!isMcpPath(new URL(request.url).pathname)) throw unauthenticated();
    const caller = await (await import("../oauth/token-caller.ts")).oauthCaller(env, request, credential);
    if (!caller) throw unauthenticated();
    return caller;
  }

  if (credential.startsWith(API_KEY_PREFIX)) {
    // Local development's well-known keys (.dev.vars); compared by hash, never deployed, and
    // from this machine only: from anywhere else they are unknown keys (src/auth/local-only.ts).
    if (config.devKeys.length > 0 && isLocalRequest(request)) {
      const hash = await hashKey(credential);
      for (const dev of config.devKeys) if (hash === (await hashKey(dev.key))) return dev.caller;
    }
    if (!env.API_KEYS) throw unauthenticated();
    const record = await new ApiKeyStore(env.API_KEYS).find(credential);
    if (!record) throw unauthenticated();
    return callerOfKey(record);
  }
  if (config.jwt && credential.split(".").length === 3) return jwtCaller(credential, config.jwt);
  throw unauthenticated();
}

async function jwtCaller(token: string, config: JwtConfig): Promise<Caller> {
  try {
    return await verifyJwt(token, config);
  } catch {
    throw unauthenticated();
  }
}

function unauthenticated(): RuntimeError {
  return new RuntimeError("unauthenticated", REFUSED);
}
