/**
 * An access token of the runtime's authorization server, on `/mcp` (src/auth/authenticate.ts
 * sends a credential of the library's shape here, and nothing else): unwrapped by the library
 * (found by its hash, unexpired, props decrypted), then held to this resource — its audience
 * must be this runtime's `/mcp` (RFC 8707; a bundle's path is the same resource) — and to the
 * key that made its grant, as it is now (src/oauth/grant.ts). Anything wrong is undefined, which
 * the caller turns into the same `unauthenticated` as any bad credential.
 */
import type { RequestFacts } from "../auth/local-only.ts";
import type { Caller } from "../contract.ts";
import { resourceOf } from "../mcp/resource-server.ts";
import { callerOfGrant, type GrantProps } from "./grant.ts";
import { keyByHash } from "./grant-key.ts";
import { oauthApi } from "./provider.ts";

export async function oauthCaller(env: Env, request: RequestFacts, token: string): Promise<Caller | undefined> {
  if (!env.OAUTH_KV) return undefined;
  const summary = await oauthApi(env, request.url).unwrapToken<GrantProps>(token);
  if (!summary) return undefined;
  const resource = resourceOf(env, request.url);
  const audience = typeof summary.audience === "string" ? [summary.audience] : (summary.audience ?? []);
  const props = summary.grant.props;
  if (!audience.includes(resource) || props.resource !== resource) return undefined;
  const key = await keyByHash(env, request, props.key_hash);
  return key ? callerOfGrant(props, key.caller) : undefined;
}
