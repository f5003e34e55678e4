/**
 * JWT_JWKS_URL against a real HTTP server on 127.0.0.1 (node:http), through the same
 * authenticate() the Worker runs: src/auth/jwt-keys.ts uses only jose and fetch, so what is
 * proven here is the key set's wiring (fetch, cache, refetch on an unknown `kid`, the checks of
 * `typ` and `iat`) and Cloudflare Access's header; that Workers' fetch reaches a JWKS URL is the
 * platform's part and is not tested here.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "../../../src/auth/authenticate.ts";
import { RuntimeError } from "../../../src/errors.ts";

const PROVIDERS = [{ name: "std", binding: "PROVIDER_STD", trust: "system" }];
const ISSUER = "https://team.cloudflareaccess.com";
const AUDIENCE = "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2";

interface Signer {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

async function signer(kid: string): Promise<Signer> {
  const pair = await generateKeyPair("ES256");
  return {
    kid,
    privateKey: pair.privateKey,
    publicJwk: { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256", use: "sig" },
  };
}

/** A key server: serves `served` (changed by the test) and counts its requests. */
let server: Server;
let served: JWK[] = [];
let fetches = 0;
let base = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    fetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A configuration whose URL no other test uses, so each test has its own cached key set. */
const envOf = (vars: Record<string, unknown> = {}) =>
  ({
    PROVIDERS,
    LOCAL_DEVELOPMENT: "true",
    JWT_JWKS_URL: `${base}/certs/${crypto.randomUUID()}`,
    JWT_ISSUER: ISSUER,
    JWT_AUDIENCE: AUDIENCE,
    ...vars,
  }) as unknown as Env;

const sign = (s: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
  new SignJWT({
    tenant: "acme",
    sub: "agent-1",
    iss: ISSUER,
    aud: AUDIENCE,
    iat: Math.floor(Date.now() / 1000),
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", kid: s.kid, ...header })
    .setExpirationTime("5m")
    .sign(s.privateKey);

const request = (headers: Record<string, string>) => new Request("http://127.0.0.1:8787/v1/tools", { headers });
const bearer = (token: string) => request({ authorization: `Bearer ${token}` });

async function outcome(p: Promise<{ tenant: string }>): Promise<string> {
  try {
    return `caller ${(await p).tenant}`;
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return (err as RuntimeError).code;
  }
}

describe("JWT_JWKS_URL", () => {
  it("fetches the keys once and keeps them for the isolate", async () => {
    const a = await signer("a");
    served = [a.publicJwk];
    const env = envOf();
    const before = fetches;
    expect(await outcome(authenticate(env, bearer(await sign(a))))).toBe("caller acme");
    expect(await outcome(authenticate(env, bearer(await sign(a))))).toBe("caller acme");
    expect(fetches - before).toBe(1);
  });

  it("verifies a token signed by a key rotated in after the keys were fetched, and refuses one whose key is gone", async () => {
    const [old, next] = [await signer("old"), await signer("next")];
    served = [old.publicJwk];
    const env = envOf({ JWT_JWKS_COOLDOWN_MS: "0" });
    expect(await outcome(authenticate(env, bearer(await sign(old))))).toBe("caller acme");
    // The identity provider rotates: the new key only.
    served = [next.publicJwk];
    const before = fetches;
    expect(await outcome(authenticate(env, bearer(await sign(next))))).toBe("caller acme");
    expect(fetches - before).toBe(1);
    // The refetched set no longer holds the old key, so its tokens are refused from now on.
    expect(await outcome(authenticate(env, bearer(await sign(old))))).toBe("unauthenticated");
  });

  it("does not refetch for an unknown key while cooling down", async () => {
    const [a, b] = [await signer("a"), await signer("b")];
    served = [a.publicJwk];
    const env = envOf(); // the default cooldown, 30 s
    expect(await outcome(authenticate(env, bearer(await sign(a))))).toBe("caller acme");
    served = [a.publicJwk, b.publicJwk];
    const before = fetches;
    expect(await outcome(authenticate(env, bearer(await sign(b))))).toBe("unauthenticated");
    expect(fetches - before).toBe(0);
  });

  it("checks the header's typ and the token's age when configured", async () => {
    const a = await signer("a");
    served = [a.publicJwk];
    const typed = envOf({ JWT_REQUIRE_TYPE: "at+jwt" });
    expect(await outcome(authenticate(typed, bearer(await sign(a, {}, { typ: "at+jwt" }))))).toBe("caller acme");
    expect(await outcome(authenticate(typed, bearer(await sign(a, {}, { typ: "application/at+jwt" }))))).toBe(
      "caller acme",
    );
    expect(await outcome(authenticate(typed, bearer(await sign(a, {}, { typ: "JWT" }))))).toBe("unauthenticated");
    expect(await outcome(authenticate(typed, bearer(await sign(a))))).toBe("unauthenticated");

    const young = envOf({ JWT_MAX_AGE_S: "60" });
    const now = Math.floor(Date.now() / 1000);
    expect(await outcome(authenticate(young, bearer(await sign(a, { iat: now - 10 }))))).toBe("caller acme");
    expect(await outcome(authenticate(young, bearer(await sign(a, { iat: now - 3600 }))))).toBe("unauthenticated");
    const noIat = await new SignJWT({ tenant: "acme" })
      .setProtectedHeader({ alg: "ES256", kid: "a" })
      .setSubject("agent-1")
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime("5m")
      .sign(a.privateKey);
    expect(await outcome(authenticate(young, bearer(noIat)))).toBe("unauthenticated");
    expect(await outcome(authenticate(envOf(), bearer(noIat)))).toBe("caller acme");
  });

  it("refuses a token for another audience or issuer", async () => {
    const a = await signer("a");
    served = [a.publicJwk];
    expect(await outcome(authenticate(envOf(), bearer(await sign(a, { aud: "another-app" }))))).toBe("unauthenticated");
    expect(
      await outcome(authenticate(envOf(), bearer(await sign(a, { iss: "https://other.cloudflareaccess.com" })))),
    ).toBe("unauthenticated");
  });
});

describe("Cloudflare Access's Cf-Access-Jwt-Assertion header", () => {
  it("is a credential with JWT_CF_ACCESS_HEADER=true, verified like a Bearer JWT", async () => {
    const [a, stranger] = [await signer("a"), await signer("a")];
    served = [a.publicJwk];
    const env = envOf({ JWT_CF_ACCESS_HEADER: "true" });
    expect(await outcome(authenticate(env, request({ "cf-access-jwt-assertion": await sign(a) })))).toBe("caller acme");
    // Same kid, another key: a forged assertion.
    expect(await outcome(authenticate(env, request({ "cf-access-jwt-assertion": await sign(stranger) })))).toBe(
      "unauthenticated",
    );
    expect(
      await outcome(authenticate(env, request({ "cf-access-jwt-assertion": await sign(a, { aud: "another-app" }) }))),
    ).toBe("unauthenticated");
    expect(await outcome(authenticate(env, request({ "cf-access-jwt-assertion": "not a token" })))).toBe(
      "unauthenticated",
    );
  });

  it("signs in an Access token, which has no tenant, channels or capabilities claims, with what configuration grants", async () => {
    const a = await signer("a");
    served = [a.publicJwk];
    const env = envOf({
      JWT_CF_ACCESS_HEADER: "true",
      JWT_TENANT_CLAIM: "email",
      JWT_DEFAULT_CHANNELS: "std, community",
      JWT_DEFAULT_CAPABILITIES: "network:api.example.com",
    });
    // An Access application token's claims (identity_nonce and country as Access adds them).
    const access = await sign(a, {
      tenant: undefined,
      email: "user@example.com",
      sub: "7335d417-61da-459d-899c-0a01c76a2f94",
      type: "app",
      identity_nonce: "6ei69kawdKzMIAPF",
      country: "US",
      aud: [AUDIENCE],
    });
    const caller = await authenticate(env, request({ "cf-access-jwt-assertion": access }));
    expect(caller).toEqual({
      tenant: "user@example.com",
      agent: "7335d417-61da-459d-899c-0a01c76a2f94",
      capabilities: ["network:api.example.com"],
      channels: ["std", "community"],
      role: "agent",
    });
    // A token's own claims still decide when it has them; without the defaults, none.
    expect(
      (await authenticate(env, bearer(await sign(a, { email: "x@example.com", channels: ["lab"] })))).channels,
    ).toEqual(["lab"]);
    const bare = await authenticate(envOf({ JWT_TENANT_CLAIM: "email" }), bearer(access));
    expect([bare.channels, bare.capabilities]).toEqual([[], []]);
  });

  it("is ignored without the switch", async () => {
    const a = await signer("a");
    served = [a.publicJwk];
    expect(await outcome(authenticate(envOf(), request({ "cf-access-jwt-assertion": await sign(a) })))).toBe(
      "unauthenticated",
    );
  });

  it("gives way to an Authorization header, which alone decides", async () => {
    const a = await signer("a");
    served = [a.publicJwk];
    const env = envOf({ JWT_CF_ACCESS_HEADER: "true" });
    const assertion = await sign(a);
    expect(
      await outcome(
        authenticate(
          env,
          request({ authorization: "Bearer trt_not_a_key_at_all_00000", "cf-access-jwt-assertion": assertion }),
        ),
      ),
    ).toBe("unauthenticated");
    expect(
      await outcome(
        authenticate(
          env,
          request({
            authorization: `Bearer ${await sign(a, { tenant: "other" })}`,
            "cf-access-jwt-assertion": assertion,
          }),
        ),
      ),
    ).toBe("caller other");
  });
});
