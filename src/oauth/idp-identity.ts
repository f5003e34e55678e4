/**
 * Who signed in through the identity provider: its ID token verified with the runtime's JWT
 * machinery (src/auth/jwt.ts, src/auth/jwt-keys.ts) and mapped to a caller exactly as a bearer
 * JWT is, with the same tenant claim, default channels and capabilities. What differs from a
 * bearer JWT is what OpenID Connect Core §3.1.3.7 asks of an ID token: its audience is this
 * runtime's client id at the provider (not the `/mcp` resource), `nonce` must be the one this
 * sign-in sent, `azp` (when present, or when there are several audiences) is that client id,
 * and it is fresh (`iat` within the ten minutes a sign-in may take). JWT_REQUIRE_TYPE and
 * JWT_MAX_AGE_S are for access tokens and do not apply: an ID token's `typ` is `JWT` or none.
 *
 * A grant keeps the claims the mapping reads, not the caller they made: every use of its
 * tokens maps them again with the configuration of the day (src/oauth/token-caller.ts).
 */
import { errors, jwtVerify, type JWTPayload } from "jose";
import type { Caller } from "../contract.ts";
import { callerOfClaims, type JwtConfig } from "../auth/jwt.ts";
import { keyResolver } from "../auth/jwt-keys.ts";
import type { IdpConfig } from "./idp-config.ts";
import { PENDING_TTL_S } from "./idp-pending.ts";

/** A person signed in through the identity provider, as a consent ticket and a grant hold them. */
export interface IdpIdentity {
  /** The provider's issuer and this runtime's client id there when the person signed in. */
  issuer: string;
  client_id: string;
  /** Only what the JWT mapping reads: `sub`, the tenant claim, `channels`, `capabilities`, `scope`. */
  claims: JWTPayload;
  /** A name a person recognises (the token's `email`, `preferred_username` or `name`), for the page. */
  display?: string;
}

/** A sign-in that cannot go on; the message is for the person on the page (and the operator they ask). */
export class SignInRefused extends Error {
  override name = "SignInRefused";
}

/** The provider's clock may be a little ahead of or behind the edge's. */
const CLOCK_TOLERANCE_S = 60;
const MAPPED_CLAIMS = ["sub", "channels", "capabilities", "scope"];

/** The identity in `idToken`; SignInRefused for anything that is not a valid ID token of this sign-in. */
export async function verifyIdToken(
  idToken: string,
  jwt: JwtConfig,
  idp: IdpConfig,
  nonce: string,
): Promise<IdpIdentity> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keyResolver(jwt.keys), {
      issuer: idp.issuer,
      audience: idp.clientId,
      algorithms: jwt.algorithms,
      requiredClaims: ["exp", "iat", "sub", "nonce"],
      maxTokenAge: PENDING_TTL_S,
      clockTolerance: CLOCK_TOLERANCE_S,
    }));
  } catch (err) {
    // jose's messages name the claim or the check, never a value of the token.
    if (err instanceof errors.JOSEError) throw new SignInRefused(`the ID token is not valid: ${err.message}`);
    throw err;
  }
  if (payload.nonce !== nonce) throw new SignInRefused("the ID token's nonce is not the one this sign-in sent");
  const several = Array.isArray(payload.aud) && payload.aud.length > 1;
  if ((several || payload.azp !== undefined) && payload.azp !== idp.clientId)
    throw new SignInRefused("the ID token's authorized party (azp) is not this runtime's client id");
  const tenant = payload[jwt.tenantClaim];
  if (typeof tenant !== "string" || tenant === "")
    throw new SignInRefused(
      `the ID token has no ${jwt.tenantClaim} claim (JWT_TENANT_CLAIM), so it names no tenant of this runtime`,
    );
  const claims: JWTPayload = {};
  for (const name of [...MAPPED_CLAIMS, jwt.tenantClaim]) if (payload[name] !== undefined) claims[name] = payload[name];
  const display = [payload.email, payload.preferred_username, payload.name].find(
    (v): v is string => typeof v === "string" && v !== "" && v.length <= 200,
  );
  return { issuer: idp.issuer, client_id: idp.clientId, claims, ...(display ? { display } : {}) };
}

/**
 * The caller `identity` is under today's configuration, mapped as a bearer JWT is; undefined
 * when signing in through the provider is off now, or the provider or this runtime's client
 * there is another than the one the person signed in with, or the claims no longer map (the
 * tenant claim was renamed, say). So an operator ends every grant made this way by turning it
 * off or moving to another provider.
 */
export function callerOfIdentity(
  identity: IdpIdentity,
  jwt: JwtConfig | undefined,
  idp: IdpConfig | undefined,
): Caller | undefined {
  if (!jwt || !idp || identity.issuer !== idp.issuer || identity.client_id !== idp.clientId) return undefined;
  try {
    return callerOfClaims(identity.claims, jwt);
  } catch {
    return undefined;
  }
}

/** The `key_id` a grant made this way shows (docs/oauth.md#grants): no key made it, the provider did. */
export function idpKeyId(identity: IdpIdentity): string {
  try {
    return `idp:${new URL(identity.issuer).host}`;
  } catch {
    return "idp";
  }
}
