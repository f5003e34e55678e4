/**
 * An access token of the runtime's authorization server, on `/mcp` (src/auth/authenticate.ts
 * sends a credential of the library's shape here, and nothing else): validated by the library
 * (found by its hash, unexpired, its audience exactly this runtime's `/mcp` — RFC 8707; a
 * bundle's path is the same resource — its props decrypted), then held to the key that made its
 * grant, as that key is now, or to the identity provider's person who made it, mapped with
 * today's configuration (src/oauth/grant.ts). Anything wrong is undefined, which the caller
 * turns into the same `unauthenticated` as any bad credential.
 */
import type { RequestFacts } from "../auth/local-only.ts";
import type { Caller } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { resourceOf } from "../mcp/resource-server.ts";
import { callerOfGrant, type GrantProps } from "./grant.ts";
import { keyByHash } from "./grant-key.ts";
import { callerOfIdentity } from "./idp-identity.ts";
import { authorizationServer } from "./provider.ts";

export async function oauthCaller(env: Env, request: RequestFacts, token: string): Promise<Caller | undefined> {
  if (!env.OAUTH_KV) return undefined;
  const resource = resourceOf(env, request.url);
  const valid = await authorizationServer(env, request.url).validateToken<GrantProps>(resource, token, env);
  if (!valid || valid.props.resource !== resource) return undefined;
  const { idp, key_hash } = valid.props;
  if (idp) {
    const config = loadConfig(env);
    const caller = callerOfIdentity(idp, config.jwt, config.idp);
    return caller ? callerOfGrant(valid.props, caller) : undefined;
  }
  const key = key_hash ? await keyByHash(env, request, key_hash) : undefined;
  return key ? callerOfGrant(valid.props, key.caller) : undefined;
}
