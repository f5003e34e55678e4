/**
 * The runtime as its own OAuth 2.1 authorization server for `/mcp` (docs/oauth.md), on
 * `@cloudflare/workers-oauth-provider`: metadata (RFC 8414), dynamic client registration
 * (RFC 7591), the token endpoint (authorization code with PKCE S256 only, refresh tokens that
 * rotate, RFC 7009 revocation), and the helpers the consent page and the grants admin use.
 * Storage is the OAUTH_KV namespace. Loaded by a dynamic import at the OAuth routes and for a
 * token of the library's shape only (docs/architecture.md#start-up-and-size).
 *
 * The runtime keeps its own protected-resource metadata and its own `/mcp` authentication
 * (src/mcp/resource-server.ts, src/auth/authenticate.ts): the library is never asked to guard
 * `/mcp`, so API keys and JWTs keep working there exactly as before; an access token of this
 * server is unwrapped by `unwrapToken` (src/oauth/token-caller.ts).
 */
import {
  getOAuthApi,
  OAuthProvider,
  type OAuthHelpers,
  type OAuthProviderOptions,
} from "@cloudflare/workers-oauth-provider";
import { resourceOf } from "../mcp/resource-server.ts";
import { RuntimeError } from "../errors.ts";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "./endpoints.ts";

/** An access token lives an hour; a refresh token 30 days from its last use (the library's defaults, said here). */
const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;

const notHere: ExportedHandler<Env> = { fetch: () => new Response(null, { status: 404 }) };

/**
 * The provider's options for a request: the resource is this runtime's `/mcp` (MCP_RESOURCE, or
 * the request's origin + /mcp), so a token is bound to it (RFC 8707) and refused elsewhere.
 */
function options(env: Env, requestUrl: string): OAuthProviderOptions<Env> {
  const resource = resourceOf(env, requestUrl);
  return {
    // The library wants a protected route and a default handler; the runtime routes only the
    // OAuth endpoints to it (src/app.ts), so neither is ever reached.
    apiRoute: "/oauth/unused",
    apiHandler: notHere,
    defaultHandler: notHere,
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    accessTokenTTL: ACCESS_TOKEN_TTL_S,
    refreshTokenTTL: REFRESH_TOKEN_TTL_S,
    resourceMetadata: {
      resource,
      authorization_servers: [new URL(requestUrl).origin],
      bearer_methods_supported: ["header"],
      resource_name: "Tool Runtime MCP",
    },
    onError: ({ code, description, status }) => {
      if (status >= 500) console.error(JSON.stringify({ msg: "oauth", code, description }));
    },
  };
}

function oauthKv(env: Env): void {
  if (!env.OAUTH_KV) throw new RuntimeError("internal", "no OAUTH_KV namespace is bound");
}

/** The metadata, registration and token endpoints: the library answers them whole. */
export function serveOAuthEndpoint(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  oauthKv(env);
  return new OAuthProvider<Env>(options(env, request.url)).fetch(request, env, ctx);
}

/** The library's helpers (parse and complete an authorization, grants, tokens) for this request's resource. */
export function oauthApi(env: Env, requestUrl: string): OAuthHelpers {
  oauthKv(env);
  return getOAuthApi<Env>(options(env, requestUrl), env);
}
