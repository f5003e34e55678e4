/**
 * JWTs from the user's identity provider, verified with `jose` against keys given in
 * configuration (JWT_JWKS; no key is fetched at run time). Only the configured algorithms
 * are accepted, so `alg: none` and algorithm confusion are refused; `exp`, `nbf`, `iss` and
 * `aud` are checked by jose; a `kid` that matches no configured key is refused.
 */
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import type { Caller } from "../contract.ts";

export interface JwtConfig {
  issuer: string;
  audience: string;
  jwks: JSONWebKeySet;
  algorithms: string[];
  /** The claim holding the caller's tenant. */
  tenantClaim: string;
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
  return callerOfClaims(payload, config.tenantClaim);
}

function callerOfClaims(p: JWTPayload, tenantClaim: string): Caller {
  const tenant = p[tenantClaim];
  if (typeof tenant !== "string" || tenant === "") throw new Error(`claim ${tenantClaim} must be a string`);
  return {
    tenant,
    agent: p.sub!,
    capabilities: stringList(p.capabilities) ?? (typeof p.scope === "string" ? p.scope.split(" ").filter(Boolean) : []),
    channels: stringList(p.channels) ?? ["*"],
    // "approver": may approve or reject its tenant's calls (issue 15); the identity provider says so.
    role: p.role === "admin" ? "admin" : p.role === "approver" ? "approver" : "tenant",
  };
}

function stringList(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((x) => typeof x === "string") ? v : undefined;
}
