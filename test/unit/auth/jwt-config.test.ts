/**
 * JWT settings that would accept more than they say are refused when the configuration is
 * loaded, with a ConfigError that names the variable.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../../src/config.ts";

const PROVIDERS = [{ name: "std", binding: "PROVIDER_STD", trust: "system" }];
const JWKS = JSON.stringify({
  keys: [
    {
      kty: "EC",
      crv: "P-256",
      x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
      kid: "k1",
    },
  ],
});
const BASE = { JWT_ISSUER: "https://idp.example", JWT_AUDIENCE: "tool-runtime" };

const envOf = (vars: Record<string, unknown>) => ({ PROVIDERS, ...vars }) as unknown as Env;
const jwtOf = (vars: Record<string, unknown>) => parseConfig(envOf(vars)).jwt;

/** The ConfigError's message, or "accepted". */
function refusal(vars: Record<string, unknown>): string {
  try {
    parseConfig(envOf(vars));
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  return "accepted";
}

describe("JWT configuration", () => {
  it("refuses an empty or missing issuer or audience, which jose would not check at all", () => {
    for (const keys of [
      { JWT_JWKS: JWKS },
      { JWT_JWKS_URL: "https://team.cloudflareaccess.com/cdn-cgi/access/certs" },
    ]) {
      for (const name of ["JWT_ISSUER", "JWT_AUDIENCE"] as const) {
        for (const value of ["", "  ", undefined]) expect(refusal({ ...keys, ...BASE, [name]: value })).toContain(name);
      }
      expect(refusal({ ...keys, ...BASE })).toBe("accepted");
    }
  });

  it("takes exactly one key source", () => {
    expect(refusal({ ...BASE, JWT_JWKS: JWKS, JWT_JWKS_URL: "https://idp.example/jwks" })).toMatch(
      /JWT_JWKS and JWT_JWKS_URL/,
    );
    expect(jwtOf({ ...BASE, JWT_JWKS: JWKS })?.keys.kind).toBe("static");
    expect(jwtOf({ ...BASE, JWT_JWKS_URL: "https://idp.example/jwks" })?.keys).toEqual({
      kind: "remote",
      url: "https://idp.example/jwks",
      cooldownMs: 30_000,
      cacheMaxAgeMs: 600_000,
    });
  });

  it("refuses any other JWT setting without a key source, instead of leaving JWTs silently off", () => {
    expect(jwtOf({})).toBeUndefined();
    expect(jwtOf({ JWT_JWKS: "", JWT_ISSUER: "" })).toBeUndefined();
    for (const name of [
      "JWT_ISSUER",
      "JWT_AUDIENCE",
      "JWT_REQUIRE_TYPE",
      "JWT_MAX_AGE_S",
      "JWT_CF_ACCESS_HEADER",
      "JWT_OPERATOR_CLAIM",
    ]) {
      expect(refusal({ [name]: "x" })).toContain(name);
    }
  });

  it("fetches keys over https only, or plain http from loopback in local development", () => {
    const url = (u: string, local = false) =>
      refusal({ ...BASE, JWT_JWKS_URL: u, ...(local ? { LOCAL_DEVELOPMENT: "true" } : {}) });
    expect(url("http://idp.example/jwks")).toContain("JWT_JWKS_URL");
    expect(url("http://127.0.0.1:9999/jwks")).toContain("JWT_JWKS_URL");
    expect(url("http://idp.example/jwks", true)).toContain("JWT_JWKS_URL");
    expect(url("http://127.0.0.1.nip.io/jwks", true)).toContain("JWT_JWKS_URL");
    expect(url("ftp://idp.example/jwks")).toContain("JWT_JWKS_URL");
    expect(url("not a url")).toContain("JWT_JWKS_URL");
    expect(url("https://user:pw@idp.example/jwks")).toContain("JWT_JWKS_URL");
    for (const local of ["http://127.0.0.1:9999/jwks", "http://localhost:9999/jwks", "http://[::1]:9999/jwks"])
      expect(url(local, true)).toBe("accepted");
  });

  it("checks the key cache's settings, and takes them with a URL only", () => {
    const remote = { ...BASE, JWT_JWKS_URL: "https://idp.example/jwks" };
    expect(jwtOf({ ...remote, JWT_JWKS_COOLDOWN_MS: "0", JWT_JWKS_CACHE_MAX_AGE_MS: "60000" })?.keys).toMatchObject({
      cooldownMs: 0,
      cacheMaxAgeMs: 60_000,
    });
    expect(refusal({ ...remote, JWT_JWKS_COOLDOWN_MS: "-1" })).toContain("JWT_JWKS_COOLDOWN_MS");
    expect(refusal({ ...remote, JWT_JWKS_CACHE_MAX_AGE_MS: "0" })).toContain("JWT_JWKS_CACHE_MAX_AGE_MS");
    expect(refusal({ ...BASE, JWT_JWKS: JWKS, JWT_JWKS_COOLDOWN_MS: "1000" })).toContain("JWT_JWKS_COOLDOWN_MS");
  });

  it("reads the required type and the maximum age, and refuses values that are neither", () => {
    const jwt = jwtOf({ ...BASE, JWT_JWKS: JWKS, JWT_REQUIRE_TYPE: "at+jwt", JWT_MAX_AGE_S: "300" });
    expect(jwt).toMatchObject({ requireType: "at+jwt", maxAgeS: 300 });
    expect(jwtOf({ ...BASE, JWT_JWKS: JWKS })).not.toHaveProperty("requireType");
    expect(refusal({ ...BASE, JWT_JWKS: JWKS, JWT_REQUIRE_TYPE: "at jwt" })).toContain("JWT_REQUIRE_TYPE");
    for (const age of ["0", "-5", "1.5", "ten"])
      expect(refusal({ ...BASE, JWT_JWKS: JWKS, JWT_MAX_AGE_S: age })).toContain("JWT_MAX_AGE_S");
  });

  it("takes the Access header switch as true or false only", () => {
    expect(jwtOf({ ...BASE, JWT_JWKS: JWKS })?.cfAccessHeader).toBe(false);
    expect(jwtOf({ ...BASE, JWT_JWKS: JWKS, JWT_CF_ACCESS_HEADER: "true" })?.cfAccessHeader).toBe(true);
    expect(refusal({ ...BASE, JWT_JWKS: JWKS, JWT_CF_ACCESS_HEADER: "yes" })).toContain("JWT_CF_ACCESS_HEADER");
  });

  it("still refuses a JWK set without keys, and symmetric algorithms", () => {
    expect(refusal({ ...BASE, JWT_JWKS: '{"keys":[]}' })).toContain("JWT_JWKS");
    expect(refusal({ ...BASE, JWT_JWKS: "{" })).toContain("JWT_JWKS");
    expect(refusal({ ...BASE, JWT_JWKS: JWKS, JWT_ALGORITHMS: "ES256,HS256" })).toContain("JWT_ALGORITHMS");
  });
});
