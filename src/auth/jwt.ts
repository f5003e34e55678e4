/**
 * JWTs from the user's identity provider, verified with `jose` against the configured keys: a
 * static set (JWT_JWKS) or the provider's JWKS URL (JWT_JWKS_URL; src/auth/jwt-keys.ts). Only
 * the configured algorithms are accepted, so `alg: none` and algorithm confusion are refused;
 * `exp`, `nbf`, `iss` and `aud` are checked by jose, and so are the header's `typ` and the
 * token's age from `iat` when configured; a `kid` that matches no key is refused. Issuer and
 * audience are never empty here: jose skips an empty value's check, so configuration refuses
 * one (src/config.ts).
 */
import { jwtVerify, type JWTPayload } from "jose";
import type { Caller } from "../contract.ts";
import { keyResolver, type JwtKeySource } from "./jwt-keys.ts";
import { parseRole } from "./roles.ts";

export interface JwtConfig {
  issuer: string;
  audience: string;
  keys: JwtKeySource;
  algorithms: string[];
  /** The header `typ` every token must carry (JWT_REQUIRE_TYPE, e.g. `at+jwt`); absent: any. */
  requireType?: string;
  /** The oldest a token may be, in seconds from its `iat` (JWT_MAX_AGE_S); absent: only `exp` limits it. */
  maxAgeS?: number;
  /** Whether Cloudflare Access's `Cf-Access-Jwt-Assertion` header is a credential (JWT_CF_ACCESS_HEADER). */
  cfAccessHeader: boolean;
  /**
   * What a token without a `channels` or `capabilities` (or `scope`) claim is granted
   * (JWT_DEFAULT_CHANNELS, JWT_DEFAULT_CAPABILITIES): none unless configured. For identity
   * providers that cannot add claims, such as Cloudflare Access (docs/jwt.md).
   */
  defaultChannels: string[];
  defaultCapabilities: string[];
  /** The claim holding the caller's tenant. */
  tenantClaim: string;
  /** A token is an operator's when this claim (a string, or a list of strings) holds one of these values. */
  operators?: { claim: string; values: string[] };
}

/** The identity in a valid token; throws (any error) for anything else. */
export async function verifyJwt(token: string, config: JwtConfig): Promise<Caller> {
  if (config.issuer === "" || config.audience === "") throw new Error("an empty issuer or audience checks nothing");
  const { payload } = await jwtVerify(token, keyResolver(config.keys), {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms,
    requiredClaims: ["exp", "sub", config.tenantClaim],
    ...(config.requireType !== undefined ? { typ: config.requireType } : {}),
    ...(config.maxAgeS !== undefined ? { maxTokenAge: config.maxAgeS } : {}),
  });
  return callerOfClaims(payload, config);
}

/**
 * Least privilege: capabilities and channels are only what the token names (without the claims,
 * what configuration grants every token, by default none), and the operator role comes from configuration (JwtConfig.operators), never from a
 * `role` the token gives itself. The same mapping makes the identity of a person signed in on
 * the OAuth consent page with an ID token (src/oauth/idp-identity.ts).
 */
export function callerOfClaims(p: JWTPayload, config: JwtConfig): Caller {
  const tenant = p[config.tenantClaim];
  if (typeof tenant !== "string" || tenant === "") throw new Error(`claim ${config.tenantClaim} must be a string`);
  return {
    tenant,
    agent: p.sub!,
    capabilities:
      stringList(p.capabilities) ??
      (typeof p.scope === "string" ? p.scope.split(" ").filter(Boolean) : config.defaultCapabilities),
    channels: stringList(p.channels) ?? config.defaultChannels,
    // Operators are named by configuration, never by the token's own word. "approver" and
    // "tenant_admin" are rights inside one tenant that the identity provider grants; anything
    // else (the old "tenant" among them) is an agent.
    role: isOperator(p, config.operators) ? "admin" : tenantRole(p.role),
  };
}

function tenantRole(claim: unknown): "agent" | "approver" | "tenant_admin" {
  const role = parseRole(claim);
  return role === "admin" ? "agent" : role;
}

function isOperator(p: JWTPayload, operators: JwtConfig["operators"]): boolean {
  if (!operators) return false;
  const held = p[operators.claim];
  const values = typeof held === "string" ? [held] : (stringList(held) ?? []);
  return values.some((v) => operators.values.includes(v));
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? v : undefined;
}
