/**
 * Settings of signing in through the identity provider that cannot work are refused when the
 * configuration is loaded, with a ConfigError naming the variable (src/oauth/idp-config.ts).
 */
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config-error.ts";
import { parseJwtConfig } from "../../../src/auth/jwt-config.ts";
import { parseIdpConfig } from "../../../src/oauth/idp-config.ts";

const JWT = {
  JWT_JWKS_URL: "https://idp.example/jwks",
  JWT_ISSUER: "https://idp.example",
  JWT_AUDIENCE: "https://runtime.example/mcp",
};
const IDP = {
  OAUTH_IDP_CLIENT_ID: "trt-runtime",
  OAUTH_IDP_AUTHORIZATION_URL: "https://idp.example/authorize",
  OAUTH_IDP_TOKEN_URL: "https://idp.example/token",
};

const parse = (vars: Record<string, unknown>) => parseIdpConfig(vars, parseJwtConfig(vars));

/** The ConfigError's message, or "accepted". */
function refusal(vars: Record<string, unknown>): string {
  try {
    parse(vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  return "accepted";
}

describe("the identity provider's sign-in settings", () => {
  it("are off without OAUTH_IDP_CLIENT_ID, and refuse any other OAUTH_IDP_* setting alone", () => {
    expect(parse(JWT)).toBeUndefined();
    expect(refusal({ ...JWT, OAUTH_IDP_TOKEN_URL: "https://idp.example/token" })).toContain(
      "OAUTH_IDP_TOKEN_URL is set, but OAUTH_IDP_CLIENT_ID is not",
    );
    expect(refusal({ ...JWT, OAUTH_IDP_CLIENT_SECRET: "s" })).toContain("OAUTH_IDP_CLIENT_SECRET is set");
  });

  it("need JWTs configured, whose issuer and keys verify the ID token", () => {
    expect(refusal(IDP)).toContain("OAUTH_IDP_CLIENT_ID is set, but JWTs are not configured");
  });

  it("need both endpoints, https unless loopback in local development", () => {
    for (const name of ["OAUTH_IDP_AUTHORIZATION_URL", "OAUTH_IDP_TOKEN_URL"]) {
      expect(refusal({ ...JWT, ...IDP, [name]: "" })).toContain(`${name} is required`);
      expect(refusal({ ...JWT, ...IDP, [name]: "not a url" })).toContain(`${name} is not a URL`);
      expect(refusal({ ...JWT, ...IDP, [name]: "http://idp.example/x" })).toContain(`${name} must be an https URL`);
      expect(refusal({ ...JWT, ...IDP, [name]: "http://127.0.0.1:9999/x" })).toContain(`${name} must be an https URL`);
      expect(refusal({ ...JWT, ...IDP, [name]: "https://u:p@idp.example/x" })).toContain(`${name} must not carry`);
      expect(refusal({ ...JWT, ...IDP, [name]: "https://idp.example/x#f" })).toContain(`${name} must not carry`);
      expect(refusal({ ...JWT, ...IDP, LOCAL_DEVELOPMENT: "true", [name]: "http://127.0.0.1:9999/x" })).toBe(
        "accepted",
      );
    }
  });

  it("ask for openid, always", () => {
    expect(refusal({ ...JWT, ...IDP, OAUTH_IDP_SCOPES: "email profile" })).toContain(
      "OAUTH_IDP_SCOPES must include openid",
    );
    expect(parse({ ...JWT, ...IDP, OAUTH_IDP_SCOPES: "openid  email" })?.scopes).toEqual(["openid", "email"]);
  });

  it("take the issuer from JWT_ISSUER, a public client without a secret, and a name from the issuer's host", () => {
    expect(parse({ ...JWT, ...IDP })).toEqual({
      issuer: "https://idp.example",
      clientId: "trt-runtime",
      authorizationUrl: "https://idp.example/authorize",
      tokenUrl: "https://idp.example/token",
      scopes: ["openid"],
      name: "idp.example",
    });
    const named = parse({ ...JWT, ...IDP, OAUTH_IDP_NAME: "Acme SSO", OAUTH_IDP_CLIENT_SECRET: "s3cret" });
    expect(named).toMatchObject({ name: "Acme SSO", clientSecret: "s3cret" });
    expect(refusal({ ...JWT, ...IDP, OAUTH_IDP_NAME: "x".repeat(61) })).toContain("OAUTH_IDP_NAME must be");
  });
});
