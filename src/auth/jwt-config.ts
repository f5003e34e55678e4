/**
 * The JWT settings (README "Callers, keys and roles"; docs/jwt.md), checked when the
 * configuration is loaded so that a setting that would quietly accept more than it says fails
 * the first request with a ConfigError naming the variable:
 *
 *  - JWTs are configured by exactly one key source: JWT_JWKS (a static JWK set) or JWT_JWKS_URL
 *    (the identity provider's key set, fetched and refetched on rotation). Any other JWT_*
 *    setting without one is refused, since it would otherwise be silently off.
 *  - JWT_ISSUER and JWT_AUDIENCE are required and never empty: jose skips the check of an empty
 *    value, so an empty one would accept any issuer or audience.
 *  - JWT_JWKS_URL is https; plain http only to a loopback host in local development
 *    (LOCAL_DEVELOPMENT=true), where tests serve keys from 127.0.0.1.
 */
import { ConfigError } from "../config-error.ts";
import type { JwtConfig } from "./jwt.ts";
import { DEFAULT_JWKS_CACHE_MAX_AGE_MS, DEFAULT_JWKS_COOLDOWN_MS, type JwtKeySource } from "./jwt-keys.ts";
import { isLoopbackHost } from "./local-only.ts";

/** Settings that mean something only when JWTs are configured. */
const JWT_SETTINGS = [
  "JWT_ISSUER",
  "JWT_AUDIENCE",
  "JWT_ALGORITHMS",
  "JWT_TENANT_CLAIM",
  "JWT_REQUIRE_TYPE",
  "JWT_MAX_AGE_S",
  "JWT_JWKS_COOLDOWN_MS",
  "JWT_JWKS_CACHE_MAX_AGE_MS",
  "JWT_CF_ACCESS_HEADER",
  "JWT_DEFAULT_CHANNELS",
  "JWT_DEFAULT_CAPABILITIES",
  "JWT_OPERATOR_CLAIM",
  "JWT_OPERATOR_VALUES",
] as const;

type JwtEnv = Partial<
  Record<"JWT_JWKS" | "JWT_JWKS_URL" | (typeof JWT_SETTINGS)[number] | "LOCAL_DEVELOPMENT", unknown>
>;

/** The JWT configuration, or undefined when no key source is set (and no other JWT setting is). */
export function parseJwtConfig(env: JwtEnv): JwtConfig | undefined {
  const keys = keySource(env);
  if (!keys) {
    const stray = JWT_SETTINGS.find((name) => isSet(env[name]));
    if (stray) throw new ConfigError(`${stray} is set, but JWTs are not configured: set JWT_JWKS or JWT_JWKS_URL too`);
    return undefined;
  }
  const algorithms = isSet(env.JWT_ALGORITHMS)
    ? String(env.JWT_ALGORITHMS)
        .split(",")
        .map((a) => a.trim())
    : ["RS256", "ES256", "EdDSA"];
  if (algorithms.some((a) => a === "" || a === "none" || a.startsWith("HS")))
    throw new ConfigError("JWT_ALGORITHMS takes asymmetric algorithms only");
  return {
    issuer: required(env, "JWT_ISSUER"),
    audience: required(env, "JWT_AUDIENCE"),
    keys,
    algorithms,
    ...(isSet(env.JWT_REQUIRE_TYPE) ? { requireType: headerType(env.JWT_REQUIRE_TYPE) } : {}),
    ...(isSet(env.JWT_MAX_AGE_S) ? { maxAgeS: wholeNumber("JWT_MAX_AGE_S", env.JWT_MAX_AGE_S, 1) } : {}),
    cfAccessHeader: flag("JWT_CF_ACCESS_HEADER", env.JWT_CF_ACCESS_HEADER),
    defaultChannels: list(env.JWT_DEFAULT_CHANNELS),
    defaultCapabilities: list(env.JWT_DEFAULT_CAPABILITIES),
    tenantClaim: isSet(env.JWT_TENANT_CLAIM) ? String(env.JWT_TENANT_CLAIM) : "tenant",
    operators: parseJwtOperators(env),
  };
}

function keySource(env: JwtEnv): JwtKeySource | undefined {
  const hasSet = isSet(env.JWT_JWKS);
  const hasUrl = isSet(env.JWT_JWKS_URL);
  if (hasSet && hasUrl)
    throw new ConfigError(
      "JWT_JWKS and JWT_JWKS_URL are both set: set exactly one (a static key set, or the URL the identity provider publishes its keys at)",
    );
  if (hasSet) {
    for (const name of ["JWT_JWKS_COOLDOWN_MS", "JWT_JWKS_CACHE_MAX_AGE_MS"] as const) {
      if (isSet(env[name])) throw new ConfigError(`${name} applies to JWT_JWKS_URL only; JWT_JWKS is a static key set`);
    }
    let jwks: unknown = env.JWT_JWKS;
    if (typeof jwks === "string") {
      try {
        jwks = JSON.parse(jwks);
      } catch {
        throw new ConfigError("JWT_JWKS is not valid JSON");
      }
    }
    const keys = (jwks as { keys?: unknown } | null)?.keys;
    if (!Array.isArray(keys) || keys.length === 0)
      throw new ConfigError("JWT_JWKS must be a JWK set with at least one key");
    return { kind: "static", jwks: { keys } };
  }
  if (!hasUrl) return undefined;
  return {
    kind: "remote",
    url: jwksUrl(String(env.JWT_JWKS_URL), env.LOCAL_DEVELOPMENT === "true"),
    cooldownMs: isSet(env.JWT_JWKS_COOLDOWN_MS)
      ? wholeNumber("JWT_JWKS_COOLDOWN_MS", env.JWT_JWKS_COOLDOWN_MS, 0)
      : DEFAULT_JWKS_COOLDOWN_MS,
    cacheMaxAgeMs: isSet(env.JWT_JWKS_CACHE_MAX_AGE_MS)
      ? wholeNumber("JWT_JWKS_CACHE_MAX_AGE_MS", env.JWT_JWKS_CACHE_MAX_AGE_MS, 1)
      : DEFAULT_JWKS_CACHE_MAX_AGE_MS,
  };
}

/** Keys fetched over plain http could be swapped on the way; loopback in local development never leaves the machine. */
function jwksUrl(value: string, localDevelopment: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError("JWT_JWKS_URL is not a URL");
  }
  if (url.username !== "" || url.password !== "")
    throw new ConfigError("JWT_JWKS_URL must not carry a user name or password");
  if (url.protocol === "https:") return url.href;
  if (url.protocol === "http:" && localDevelopment && isLoopbackHost(url.host)) return url.href;
  throw new ConfigError(
    "JWT_JWKS_URL must be an https URL (plain http only to a loopback host with LOCAL_DEVELOPMENT=true)",
  );
}

function required(env: JwtEnv, name: "JWT_ISSUER" | "JWT_AUDIENCE"): string {
  const value = env[name];
  // jose skips the check of an empty issuer or audience: empty would accept every token's.
  if (typeof value !== "string" || value.trim() === "")
    throw new ConfigError(`${name} is required (and must not be empty) when JWTs are configured`);
  return value;
}

/** A media type's printable characters (RFC 7515 §4.1.9); jose compares it without case and an `application/` prefix. */
function headerType(value: unknown): string {
  if (typeof value !== "string" || !/^[\x21-\x7e]{1,100}$/.test(value))
    throw new ConfigError("JWT_REQUIRE_TYPE must be a media type such as at+jwt");
  return value;
}

function flag(name: string, value: unknown): boolean {
  if (value === undefined || value === "" || value === "false" || value === false) return false;
  if (value === "true" || value === true) return true;
  throw new ConfigError(`${name} must be true or false`);
}

function wholeNumber(name: string, value: unknown, least: number): number {
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < least)
    throw new ConfigError(`${name} must be a whole number, at least ${least}`);
  return n;
}

/** A comma-separated list; absent or empty: none. */
function list(value: unknown): string[] {
  return isSet(value)
    ? String(value)
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean)
    : [];
}

function isSet(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "";
}

/**
 * Which tokens are operators' (JWT_OPERATOR_CLAIM and JWT_OPERATOR_VALUES): a claim and the
 * values that name an operator, e.g. `groups` and `tool-runtime-operators`, or `sub` and a list
 * of people. Without both, no token is an operator's; a token's own `role` claim never is.
 */
function parseJwtOperators(env: JwtEnv): JwtConfig["operators"] {
  const claim = isSet(env.JWT_OPERATOR_CLAIM) ? String(env.JWT_OPERATOR_CLAIM) : "";
  const values = (isSet(env.JWT_OPERATOR_VALUES) ? String(env.JWT_OPERATOR_VALUES) : "")
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  if (claim === "" && values.length === 0) return undefined;
  if (claim === "" || values.length === 0)
    throw new ConfigError(
      "JWT_OPERATOR_CLAIM and JWT_OPERATOR_VALUES go together: a claim, and the comma-separated values that make an operator",
    );
  return { claim, values };
}
