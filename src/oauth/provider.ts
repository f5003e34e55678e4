/**
 * The runtime as its own OAuth 2.1 authorization server for `/mcp` (docs/oauth.md), on
 * `@cloudflare/workers-oauth-provider`'s authorization-server role: metadata (RFC 8414), dynamic
 * client registration (RFC 7591), Client ID Metadata Documents (docs/oauth.md#client-id-metadata-documents),
 * the token endpoint (authorization code with PKCE S256 only,
 * refresh tokens that rotate, RFC 7009 revocation), token validation, and the helpers the
 * consent page and the grants admin use. Storage is the OAUTH_KV namespace. Loaded by a
 * dynamic import at the OAuth routes and for a token of the library's shape only
 * (docs/architecture.md#start-up-and-size).
 *
 * The runtime keeps its own protected-resource metadata and its own `/mcp` authentication
 * (src/mcp/resource-server.ts, src/auth/authenticate.ts): the library never guards `/mcp`, so
 * API keys and JWTs keep working there exactly as before; an access token of this server is
 * checked by `validateToken` (src/oauth/token-caller.ts).
 */
import { OAuthAuthorizationServer, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { resourceOf } from "../mcp/resource-server.ts";
import { ConfigError } from "../config-error.ts";
import { RuntimeError } from "../errors.ts";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "./endpoints.ts";

/** An access token lives an hour; a grant (its refresh token) 30 days from the code exchange (the library's defaults, said here). */
const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 30 * 24 * 3600;
/** Servers kept per isolate, one per (issuer, resource, OAUTH_CIMD): a deployment has one or two. */
const MAX_SERVERS = 16;

const servers = new Map<string, OAuthAuthorizationServer<Env>>();

/**
 * The authorization server for a request: its issuer is the request's origin, and its one
 * resource this runtime's `/mcp` (MCP_RESOURCE, or the origin + /mcp), so every token is bound
 * to that resource (RFC 8707) and refused for any other. Built once per (issuer, resource,
 * OAUTH_CIMD): the library checks its configuration at construction.
 */
export function authorizationServer(env: Env, requestUrl: string): OAuthAuthorizationServer<Env> {
  if (!env.OAUTH_KV) throw new RuntimeError("internal", "no OAUTH_KV namespace is bound");
  const issuer = new URL(requestUrl).origin;
  const resource = resourceOf(env, requestUrl);
  const cimd = cimdEnabled(env);
  const id = `${issuer} ${resource} ${cimd}`;
  let server = servers.get(id);
  if (!server) {
    server = new OAuthAuthorizationServer<Env>({
      issuer,
      resources: [resource],
      authorizeEndpoint: AUTHORIZE_PATH,
      tokenEndpoint: TOKEN_PATH,
      clientRegistrationEndpoint: REGISTER_PATH,
      accessTokenTTL: ACCESS_TOKEN_TTL_S,
      refreshTokenTTL: REFRESH_TOKEN_TTL_S,
      // An https client_id with a path is fetched as the client's metadata document, with the
      // global fetch. The library does so only under the `global_fetch_strictly_public`
      // compatibility flag (wrangler.jsonc: the fetch goes out as from the public internet, never
      // straight to an origin behind this Worker's zone), and advertises
      // `client_id_metadata_document_supported` only when both are on.
      clientIdMetadataDocumentEnabled: cimd,
    });
    if (servers.size >= MAX_SERVERS) servers.clear();
    servers.set(id, server);
  }
  return server;
}

/**
 * OAUTH_CIMD: "on" (the default) or "off". On, anyone who opens the consent page makes the
 * runtime fetch the https URL they name as client_id (as from the public internet, at most 5 KB
 * and 10 s, cached as the document's Cache-Control says, up to 7 days); an operator whose egress
 * policy forbids that, or who wants registered clients only, turns it off. Without the
 * compatibility flag it is off too: the library would fail every URL client_id with an error
 * of its own, where off makes it an unknown client.
 */
export function cimdEnabled(env: Env): boolean {
  const value = env.OAUTH_CIMD || "on";
  if (value !== "on" && value !== "off") throw new ConfigError('OAUTH_CIMD must be "on" or "off"');
  return value === "on" && Cloudflare.compatibilityFlags.global_fetch_strictly_public === true;
}

/** The metadata, registration and token endpoints: the library answers them whole. */
export function serveOAuthEndpoint(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
  return authorizationServer(env, request.url).fetch(request, env, ctx);
}

/** The library's helpers (parse and complete an authorization, grants) for this request's issuer and resource. */
export function oauthApi(env: Env, requestUrl: string): OAuthHelpers {
  return authorizationServer(env, requestUrl).getOAuthApi(env);
}
