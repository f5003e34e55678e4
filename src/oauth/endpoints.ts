/**
 * Where the runtime's OAuth 2.1 authorization server answers (docs/oauth.md), and what an access
 * token it issued looks like. Here, apart from the library, so that routing a request and telling
 * a token from an API key or a JWT load none of it (docs/architecture.md#start-up-and-size).
 */

/** RFC 8414 authorization-server metadata (the library serves it). */
export const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
/**
 * The consent page, a page of the console (docs/decisions/46-consent-in-console.md): a person
 * signs in with an API key or through the identity provider and chooses what the client may
 * use (src/oauth/consent.ts). wrangler.jsonc's "assets" leave to the static assets only what
 * the console's build holds, so this path runs the Worker.
 */
export const AUTHORIZE_PATH = "/console/authorize";
/** Where the consent page was: a 308 to AUTHORIZE_PATH with the same query, for clients that cached the old metadata. */
export const FORMER_AUTHORIZE_PATH = "/oauth/authorize";
/** Code and refresh-token exchange, and RFC 7009 revocation (the library's). */
export const TOKEN_PATH = "/oauth/token";
/** RFC 7591 dynamic client registration (the library's). */
export const REGISTER_PATH = "/oauth/register";
/**
 * Where the identity provider sends the browser back after a person signs in there
 * (src/oauth/idp-callback.ts): a browser route, fixed, registered with the provider as this
 * runtime's redirect URI.
 */
export const IDP_CALLBACK_PATH = "/oauth/idp/callback";

/** The paths whose protocol is OAuth's, not the /v1 envelope's. */
export function isOAuthPath(path: string): boolean {
  return (
    path === AS_METADATA_PATH ||
    path === AUTHORIZE_PATH ||
    path === FORMER_AUTHORIZE_PATH ||
    path === TOKEN_PATH ||
    path === REGISTER_PATH ||
    path === IDP_CALLBACK_PATH
  );
}

/**
 * An access token of this authorization server: `<user>:<grant>:<secret>` (the library's format).
 * Neither an API key (`trt_` and base64url) nor a JWT (base64url parts joined by dots) holds a
 * colon, so the shape alone tells them apart; test it first, as a tenant's name may hold dots.
 */
export function isOAuthAccessToken(credential: string): boolean {
  return /^[^:]{1,512}:[^:]{1,128}:[^:]{1,256}$/.test(credential);
}

/** The library's user id of a tenant: its grants are listed and revoked by it, and it may not hold a colon. */
export function grantUserOf(tenant: string): string {
  return encodeURIComponent(tenant);
}
