/**
 * The API key behind a grant: found by the key itself when a person signs in on the consent
 * page, and by its hash every time a token of the grant is used (src/oauth/grant.ts), so that a
 * revoked key ends its grants. Failed sign-ins count against the address as failed credentials
 * do on /v1 (src/auth/auth-limiter.ts).
 */
import { ApiKeyStore, callerOfKey, hashKey } from "../auth/api-keys.ts";
import { countFailure, refuseIfBlocked } from "../auth/auth-limiter.ts";
import { isLocalRequest, type RequestFacts } from "../auth/local-only.ts";
import { loadConfig } from "../config.ts";
import type { Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";

export interface GrantKey {
  caller: Caller;
  keyId: string;
  keyHash: string;
}

/** The key a person typed, or `unauthenticated` (counted against the address). */
export async function signInWithKey(env: Env, request: RequestFacts, key: string): Promise<GrantKey> {
  refuseIfBlocked(request);
  const found = /^[\x21-\x7e]{1,4096}$/.test(key) ? await keyByHash(env, request, await hashKey(key)) : undefined;
  if (!found) throw await countFailure(env, request, new RuntimeError("unauthenticated", "no such API key"));
  return found;
}

/** The live key of that hash: a stored key, or (from this machine, in local development) a well-known one. */
export async function keyByHash(env: Env, request: RequestFacts, hash: string): Promise<GrantKey | undefined> {
  const config = loadConfig(env);
  if (config.devKeys.length > 0 && isLocalRequest(request))
    for (const dev of config.devKeys)
      if (hash === (await hashKey(dev.key)))
        return { caller: dev.caller, keyId: `dev:${dev.caller.agent}`, keyHash: hash };
  if (!env.API_KEYS) return undefined;
  const record = await new ApiKeyStore(env.API_KEYS).findByHash(hash);
  return record ? { caller: callerOfKey(record), keyId: record.key_id, keyHash: hash } : undefined;
}
