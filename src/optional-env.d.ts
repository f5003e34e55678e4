/**
 * Settings that wrangler.jsonc does not name, so `wrangler types` cannot see them: set per
 * deployment (secrets, `--var`) or absent. Merged into the generated `Env`.
 */
interface Env {
  /** A JWK set (JSON) that signs accepted JWTs; this or JWT_JWKS_URL, with JWT_ISSUER and JWT_AUDIENCE (src/auth/jwt-config.ts). */
  JWT_JWKS?: string;
  /** The identity provider's JWK set URL (https), fetched and refetched when keys rotate; instead of JWT_JWKS. */
  JWT_JWKS_URL?: string;
  /** JWT_JWKS_URL: after a fetch, the milliseconds before an unknown key may fetch again (default 30000). */
  JWT_JWKS_COOLDOWN_MS?: string;
  /** JWT_JWKS_URL: how long fetched keys are used, in milliseconds (default 600000). */
  JWT_JWKS_CACHE_MAX_AGE_MS?: string;
  /** Required with JWTs, never empty. */
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  /** The header `typ` every token must carry, e.g. at+jwt (RFC 9068); absent: any. */
  JWT_REQUIRE_TYPE?: string;
  /** The oldest a token may be, in seconds from its `iat`; absent: only `exp` limits it. */
  JWT_MAX_AGE_S?: string;
  /** "true": Cloudflare Access's Cf-Access-Jwt-Assertion header is a credential when no Authorization header is sent. */
  JWT_CF_ACCESS_HEADER?: string;
  /** Comma-separated channels for a token without a `channels` claim (default: none). */
  JWT_DEFAULT_CHANNELS?: string;
  /** Comma-separated capabilities for a token without `capabilities` or `scope` (default: none). */
  JWT_DEFAULT_CAPABILITIES?: string;
  /** Comma-separated asymmetric algorithms (default RS256, ES256, EdDSA). */
  JWT_ALGORITHMS?: string;
  /** The claim that names the tenant (default `tenant`). */
  JWT_TENANT_CLAIM?: string;
  /** /mcp's resource identifier (RFC 8707, RFC 9728 `resource`); default: the request's origin + /mcp. */
  MCP_RESOURCE?: string;
  /** "off": no Client ID Metadata Documents, so the OAuth server fetches nothing a client names (default "on"; docs/oauth.md). */
  OAUTH_CIMD?: string;
  /** This runtime's client id at the identity provider: turns on signing in through it on the OAuth consent page (src/oauth/idp-config.ts). */
  OAUTH_IDP_CLIENT_ID?: string;
  /** Its client secret (a secret); absent for a public client. */
  OAUTH_IDP_CLIENT_SECRET?: string;
  /** The identity provider's authorization and token endpoints (https). */
  OAUTH_IDP_AUTHORIZATION_URL?: string;
  OAUTH_IDP_TOKEN_URL?: string;
  /** Space-separated scopes to ask for (default `openid`; must include it). */
  OAUTH_IDP_SCOPES?: string;
  /** The consent page's button: "Sign in with <name>" (default: JWT_ISSUER's host). */
  OAUTH_IDP_NAME?: string;
  /** Comma-separated hostnames whose pages may call /mcp (Origin check); localhost always may. */
  MCP_ALLOWED_ORIGINS?: string;
  /** Operators are named by configuration: a token is an operator's when this claim holds one of JWT_OPERATOR_VALUES. */
  JWT_OPERATOR_CLAIM?: string;
  /** Comma-separated values of JWT_OPERATOR_CLAIM that make an operator (a group, or a list of subjects). */
  JWT_OPERATOR_VALUES?: string;
  /** Per effect, whether a failed or late intent verifier skips level 2 or refuses the call (JSON; src/pipeline/verifier-policy.ts). Absent: skip. */
  VERIFIER_FAILURE_POLICY?: string | object;
  /** Which tenants' calls wait for a person's approval (JSON; src/policy/approvals.ts). Absent: none. */
  APPROVALS?: string | object;
  /**
   * The one-time operator bootstrap's secret (`POST /v1/admin/bootstrap`, src/routes/bootstrap.ts):
   * at least 32 characters, e.g. `openssl rand -base64 32`. Absent: the route does not exist.
   */
  BOOTSTRAP_TOKEN?: string;
  /** Local development only (.dev.vars; wrangler.jsonc's `secrets.required` hides them from `wrangler types`): see src/config.ts. */
  LOCAL_DEVELOPMENT?: string;
  DEV_API_KEY?: string;
  DEV_CALLER?: string;
  DEV_ADMIN_KEY?: string;
  DEV_ADMIN?: string;
  /** Upstream MCP servers (JSON), when not in wrangler.jsonc's vars. */
  UPSTREAMS?: string;
  /** The key that seals tenants' upstream tokens (src/upstreams/credentials.ts): optional. */
  UPSTREAM_TOKEN_KEY?: string;
}
