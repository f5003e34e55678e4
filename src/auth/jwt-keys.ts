/**
 * The keys that sign accepted JWTs: a static JWK set from configuration (JWT_JWKS), or the
 * identity provider's JWKS URL (JWT_JWKS_URL, e.g. Cloudflare Access's
 * `https://<team>.cloudflareaccess.com/cdn-cgi/access/certs`), fetched by jose.
 *
 * Runtime-agnostic (jose and `fetch` only), so the same module is tested under Node against a
 * real HTTP server and runs in the Worker.
 *
 * A remote key set is made once per isolate for each URL and options and kept: jose caches the
 * fetched keys in it (for `cacheMaxAgeMs`), and a token whose `kid` matches no cached key makes
 * it fetch again (at most once per `cooldownMs`), which is how a rotated-in key starts to verify
 * without a deploy. Building it per request would fetch the set on every call.
 */
import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";

export type JwtKeySource =
  | { kind: "static"; jwks: JSONWebKeySet }
  | {
      kind: "remote";
      url: string;
      /** After a fetch, how long an unknown `kid` waits before it may cause another (jose's cooldownDuration). */
      cooldownMs: number;
      /** How long fetched keys are used before they are fetched again (jose's cacheMaxAge). */
      cacheMaxAgeMs: number;
    };

/** jose's defaults: 30 s between fetches caused by unknown keys, keys kept 10 minutes. */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
export const DEFAULT_JWKS_CACHE_MAX_AGE_MS = 600_000;

const remoteSets = new Map<string, JWTVerifyGetKey>();
const staticSets = new WeakMap<JSONWebKeySet, JWTVerifyGetKey>();

/** The key resolver jose's jwtVerify takes, for this source; the same one for every call in this isolate. */
export function keyResolver(source: JwtKeySource): JWTVerifyGetKey {
  if (source.kind === "static") {
    let keys = staticSets.get(source.jwks);
    if (!keys) staticSets.set(source.jwks, (keys = createLocalJWKSet(source.jwks)));
    return keys;
  }
  const id = `${source.url} ${source.cooldownMs} ${source.cacheMaxAgeMs}`;
  let keys = remoteSets.get(id);
  if (!keys) {
    keys = createRemoteJWKSet(new URL(source.url), {
      cooldownDuration: source.cooldownMs,
      cacheMaxAge: source.cacheMaxAgeMs,
    });
    remoteSets.set(id, keys);
  }
  return keys;
}
