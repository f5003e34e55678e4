/**
 * JWTs from the user's identity provider, verified with `jose` against keys given in
 * configuration (JWT_JWKS; no key is fetched at run time). Only the configured algorithms
 * are accepted, so `alg: none` and algorithm confusion are refused; `exp`, `nbf`, `iss` and
 * `aud` are checked by jose; a `kid` that matches no configured key is refused.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import type { Caller } from "../contract.ts";
import { parseRole } from "./roles.ts";

export interface JwtConfig {
  issuer: string;
  audience: string;
  jwks: JSONWebKeySet;
  algorithms: string[];
  /** The claim holding the caller's tenant. */
  tenantClaim: string;
  /** A token is an operator's when this claim (a string, or a list of strings) holds one of these values. */
  operators?: { claim: string; values: string[] };
}

/** The identity in a valid token; throws (any error) for anything else. */
export async function verifyJwt(token: string, config: JwtConfig): Promise<Caller> {
  const keys = createLocalJWKSet(config.jwks);
  const { payload } = await jwtVerify(token, keys, {
    issuer: config.issuer,
    audience: config.audience,
    algorithms: config.algorithms,
    requiredClaims: ["exp", "sub", config.tenantClaim],
  });
  return callerOfClaims(payload, config);
}

/**
 * Least privilege: capabilities and channels are only what the token names (none without the
 * claims), and the operator role comes from configuration (JwtConfig.operators), never from a
 * `role` the token gives itself.
 */
function callerOfClaims(p: JWTPayload, config: JwtConfig): Caller {
  const tenant = p[config.tenantClaim];
  if (typeof tenant !== "string" || tenant === "") throw new Error(`claim ${config.tenantClaim} must be a string`);
  return {
    tenant,
    agent: p.sub!,
    capabilities: stringList(p.capabilities) ?? (typeof p.scope === "string" ? p.scope.split(" ").filter(Boolean) : []),
    channels: stringList(p.channels) ?? [],
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
