/**
 * The settings of signing in on the consent page through the operator's identity provider
 * (docs/oauth.md#signing-in-through-the-identity-provider), checked when the configuration is
 * loaded, as the JWT settings are (src/auth/jwt-config.ts), so that a setting that cannot work
 * fails the first request with a ConfigError naming the variable:
 *
 *  - OAUTH_IDP_CLIENT_ID turns it on; any other OAUTH_IDP_* setting without it is refused, as it
 *    would otherwise be silently off.
 *  - It needs JWTs configured: the ID token is verified with the JWT settings (JWT_ISSUER is the
 *    identity provider's issuer, JWT_JWKS or JWT_JWKS_URL its keys, JWT_ALGORITHMS) and mapped
 *    to a tenant and an agent as a bearer JWT is (src/auth/jwt.ts).
 *  - OAUTH_IDP_AUTHORIZATION_URL and OAUTH_IDP_TOKEN_URL are required and https; plain http only
 *    to a loopback host with LOCAL_DEVELOPMENT=true. They are settings, not read from the
 *    provider's discovery document, so that they are checked here and no sign-in waits on a
 *    fetch of it (docs/decisions/45-idp-sign-in.md).
 *  - OAUTH_IDP_SCOPES includes `openid`: without it the provider returns no ID token.
 */
import { ConfigError } from "../config-error.ts";
import type { JwtConfig } from "../auth/jwt.ts";
import { isLoopbackHost } from "../auth/local-only.ts";

export interface IdpConfig {
  /** The identity provider's issuer: JWT_ISSUER, the `iss` of its ID tokens. */
  issuer: string;
  /** This runtime's client id at the identity provider: its ID tokens' audience. */
  clientId: string;
  /** Absent for a public client, which proves itself with PKCE alone. */
  clientSecret?: string;
  authorizationUrl: string;
  tokenUrl: string;
  /** Sent as `scope`, space-separated; always holds `openid`. */
  scopes: string[];
  /** What the consent page's button says: "Sign in with <name>". */
  name: string;
}

const IDP_SETTINGS = [
  "OAUTH_IDP_CLIENT_SECRET",
  "OAUTH_IDP_AUTHORIZATION_URL",
  "OAUTH_IDP_TOKEN_URL",
  "OAUTH_IDP_SCOPES",
  "OAUTH_IDP_NAME",
] as const;

type IdpEnv = Partial<Record<"OAUTH_IDP_CLIENT_ID" | (typeof IDP_SETTINGS)[number] | "LOCAL_DEVELOPMENT", unknown>>;

/** The identity provider's sign-in, or undefined when OAUTH_IDP_CLIENT_ID is not set (nor any other OAUTH_IDP_* setting). */
export function parseIdpConfig(env: IdpEnv, jwt: JwtConfig | undefined): IdpConfig | undefined {
  if (!isSet(env.OAUTH_IDP_CLIENT_ID)) {
    const stray = IDP_SETTINGS.find((name) => isSet(env[name]));
    if (stray) throw new ConfigError(`${stray} is set, but OAUTH_IDP_CLIENT_ID is not: set it too, or neither`);
    return undefined;
  }
  if (!jwt)
    throw new ConfigError(
      "OAUTH_IDP_CLIENT_ID is set, but JWTs are not configured: the ID token is verified with JWT_ISSUER and JWT_JWKS or JWT_JWKS_URL",
    );
  const clientId = printable("OAUTH_IDP_CLIENT_ID", env.OAUTH_IDP_CLIENT_ID, 256);
  const localDevelopment = env.LOCAL_DEVELOPMENT === "true";
  const scopes = isSet(env.OAUTH_IDP_SCOPES)
    ? printable("OAUTH_IDP_SCOPES", env.OAUTH_IDP_SCOPES, 1000).split(" ").filter(Boolean)
    : ["openid"];
  if (!scopes.includes("openid"))
    throw new ConfigError("OAUTH_IDP_SCOPES must include openid (space-separated): without it no ID token comes back");
  return {
    issuer: jwt.issuer,
    clientId,
    ...(isSet(env.OAUTH_IDP_CLIENT_SECRET)
      ? { clientSecret: printable("OAUTH_IDP_CLIENT_SECRET", env.OAUTH_IDP_CLIENT_SECRET, 1000) }
      : {}),
    authorizationUrl: endpoint("OAUTH_IDP_AUTHORIZATION_URL", env.OAUTH_IDP_AUTHORIZATION_URL, localDevelopment),
    tokenUrl: endpoint("OAUTH_IDP_TOKEN_URL", env.OAUTH_IDP_TOKEN_URL, localDevelopment),
    scopes,
    name: isSet(env.OAUTH_IDP_NAME) ? printable("OAUTH_IDP_NAME", env.OAUTH_IDP_NAME, 60) : hostOf(jwt.issuer),
  };
}

/**
 * The provider's endpoints: the token request carries the client secret and brings back the ID
 * token, so it must not cross the network in the clear; loopback in local development never
 * leaves the machine. No fragment (RFC 6749 §3.1), no user name or password.
 */
function endpoint(name: string, value: unknown, localDevelopment: boolean): string {
  if (!isSet(value)) throw new ConfigError(`${name} is required when OAUTH_IDP_CLIENT_ID is set`);
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    throw new ConfigError(`${name} is not a URL`);
  }
  if (url.username !== "" || url.password !== "" || url.hash !== "")
    throw new ConfigError(`${name} must not carry a user name, password or fragment`);
  if (url.protocol === "https:") return url.href;
  if (url.protocol === "http:" && localDevelopment && isLoopbackHost(url.host)) return url.href;
  throw new ConfigError(
    `${name} must be an https URL (plain http only to a loopback host with LOCAL_DEVELOPMENT=true)`,
  );
}

/** Printable ASCII and spaces, not empty, at most `max` characters. */
function printable(name: string, value: unknown, max: number): string {
  const text = String(value).trim();
  if (text === "" || text.length > max || !/^[\x20-\x7e]+$/.test(text))
    throw new ConfigError(`${name} must be printable ASCII, 1 to ${max} characters`);
  return text;
}

function hostOf(issuer: string): string {
  try {
    return new URL(issuer).host || issuer;
  } catch {
    return issuer;
  }
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}
