/**
 * `/mcp` as an OAuth 2.0 protected resource (MCP basic/authorization): the same bearer
 * credentials as /v1 (API keys and JWTs, src/auth/authenticate.ts) and the access tokens of the
 * runtime's own authorization server (docs/oauth.md), and what a client needs to find out how
 * to get one:
 *
 *   401  `WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"`
 *   403  a refused call for a missing capability: `error="insufficient_scope", scope="<capability>"`
 *   GET /.well-known/oauth-protected-resource[/mcp]   RFC 9728 metadata; its authorization servers
 *        are the runtime itself (docs/oauth.md) and the configured JWT issuer (JWT_ISSUER)
 *
 * A JWT is accepted only for this resource: its `aud` must be JWT_AUDIENCE (RFC 8707 §2), which
 * names this runtime. Settings, read once per isolate:
 *   MCP_RESOURCE         this resource's identifier (default: the request's origin + /mcp);
 *                        deployments that issue JWTs set it and JWT_AUDIENCE to the same URL
 *   MCP_ALLOWED_ORIGINS  comma-separated hostnames whose pages may call /mcp (Origin check;
 *                        localhost, 127.0.0.1 and [::1] always may)
 */
import { ConfigError, loadConfig } from "../config.ts";

/** The MCP endpoint: here, not beside the handler, so that routing it does not load the MCP SDK. */
export const MCP_PATH = "/mcp";
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/**
 * `/mcp` and a bundle's `/mcp/{bundle}` (docs/contract.md#bundles). A bundle's path is part of
 * the `/mcp` resource: the same credentials and token audience, and the same metadata (its
 * `resource` is a prefix of the bundle's URL, which is how MCP clients match it).
 */
export function isMcpPath(path: string): boolean {
  return path === MCP_PATH || (path.startsWith(`${MCP_PATH}/`) && !path.slice(MCP_PATH.length + 1).includes("/"));
}

interface McpSettings {
  resource?: string;
  allowedOrigins: string[];
}

const cache = new WeakMap<object, McpSettings>();

export function mcpSettings(env: Env): McpSettings {
  let settings = cache.get(env);
  if (!settings) {
    settings = parseSettings(env);
    cache.set(env, settings);
  }
  return settings;
}

function parseSettings(env: Env): McpSettings {
  const resource = env.MCP_RESOURCE || undefined;
  if (resource !== undefined) {
    let url: URL;
    try {
      url = new URL(resource);
    } catch {
      throw new ConfigError("MCP_RESOURCE must be an absolute URL");
    }
    if (!/^https?:$/.test(url.protocol) || url.hash)
      throw new ConfigError("MCP_RESOURCE must be an http(s) URL without a fragment (RFC 8707 §2)");
  }
  const allowedOrigins = (env.MCP_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean);
  if (allowedOrigins.some((h) => !/^[a-z0-9.[\]:-]+$/i.test(h)))
    throw new ConfigError("MCP_ALLOWED_ORIGINS takes comma-separated hostnames");
  return { resource, allowedOrigins };
}

/** This resource's identifier, as clients name it when asking for a token (RFC 8707 `resource`). */
export function resourceOf(env: Env, requestUrl: string): string {
  return mcpSettings(env).resource ?? `${new URL(requestUrl).origin}/mcp`;
}

/** RFC 9728 §3.1: the well-known path goes between the host and the resource's path. */
export function metadataUrlOf(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${METADATA_PATH}${url.pathname === "/" ? "" : url.pathname}`;
}

/** RFC 9728 §2, for `GET /.well-known/oauth-protected-resource[/mcp]`. */
export function protectedResourceMetadata(env: Env, requestUrl: string): Record<string, unknown> {
  const jwt = loadConfig(env).jwt;
  // The runtime itself (its OAuth server, docs/oauth.md, whose issuer is this origin) first, as
  // clients that add a server by URL take the first; then the configured JWT issuer. API keys
  // come from an operator (POST /v1/admin/keys).
  const servers = [...(env.OAUTH_KV ? [new URL(requestUrl).origin] : []), ...(jwt ? [jwt.issuer] : [])];
  return {
    resource: resourceOf(env, requestUrl),
    ...(servers.length > 0 ? { authorization_servers: servers } : {}),
    bearer_methods_supported: ["header"],
    resource_name: "Tool Runtime MCP",
  };
}

/** The 401 challenge (RFC 9728 §5.1). */
export function unauthorizedChallenge(env: Env, requestUrl: string): string {
  return `Bearer resource_metadata="${metadataUrlOf(resourceOf(env, requestUrl))}"`;
}

/** The 403 challenge for a capability the credential lacks (RFC 6750 §3.1, MCP §Runtime Insufficient Scope Errors). */
export function insufficientScopeChallenge(env: Env, requestUrl: string, required: string, message: string): string {
  const quoted = (s: string) => s.replace(/["\\]/g, "");
  return `Bearer error="insufficient_scope", scope="${quoted(required)}", resource_metadata="${metadataUrlOf(resourceOf(env, requestUrl))}", error_description="${quoted(message)}"`;
}
