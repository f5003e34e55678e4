/**
 * Least privilege (docs/roles.md): operators are named by configuration, never by a token's own
 * `role`; channels and capabilities default to none; local development's keys work only with
 * the flag that .dev.vars sets.
 */
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { authenticate } from "../../../src/auth/authenticate.ts";
import { callerOfKey } from "../../../src/auth/api-keys.ts";
import { ConfigError, parseConfig } from "../../../src/config.ts";
import { RuntimeError } from "../../../src/errors.ts";

const PROVIDERS = [{ name: "std", binding: "PROVIDER_STD", trust: "system" }];
const DEV = {
  DEV_API_KEY: "trt_dev_local_only_tenant_key_0001",
  DEV_CALLER: '{"tenant":"dev","agent":"dev-agent"}',
  DEV_ADMIN_KEY: "trt_dev_local_only_admin_key_0001",
};
const ISSUER = "https://idp.test.invalid";
const AUDIENCE = "tool-runtime";

const envOf = (vars: Record<string, unknown>) => ({ PROVIDERS, ...vars }) as unknown as Env;

/** A request to a local stack (loopback Host) with this Authorization header. */
const bearer = (authorization: string, host = "127.0.0.1:8787") =>
  new Request(`http://${host}/v1/tools`, { headers: { authorization } });

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return (err as RuntimeError).code;
  }
  return "accepted";
}

describe("local development's well-known keys", () => {
  it("are ignored without LOCAL_DEVELOPMENT=true", async () => {
    expect(parseConfig(envOf(DEV)).devKeys).toEqual([]);
    expect(parseConfig(envOf({ ...DEV, LOCAL_DEVELOPMENT: "1" })).devKeys).toEqual([]);
    expect(await refusal(authenticate(envOf(DEV), bearer(`Bearer ${DEV.DEV_API_KEY}`)))).toBe("unauthenticated");
  });

  it("work with it, granting only what the configuration names", async () => {
    const env = envOf({ ...DEV, LOCAL_DEVELOPMENT: "true" });
    const caller = await authenticate(env, bearer(`Bearer ${DEV.DEV_API_KEY}`));
    expect(caller).toEqual({ tenant: "dev", agent: "dev-agent", capabilities: [], channels: [], role: "tenant" });
    expect((await authenticate(env, bearer(`Bearer ${DEV.DEV_ADMIN_KEY}`))).role).toBe("admin");
  });

  it("are unknown keys for a request whose Host is not loopback, or whose connecting address is not", async () => {
    const env = envOf({ ...DEV, LOCAL_DEVELOPMENT: "true" });
    for (const host of ["attacker.example", "192.168.1.20:8787", "localhost.attacker.example"]) {
      expect(await refusal(authenticate(env, bearer(`Bearer ${DEV.DEV_ADMIN_KEY}`, host)))).toBe("unauthenticated");
    }
    const remote = new Request("http://localhost:8787/v1/tools", {
      headers: { authorization: `Bearer ${DEV.DEV_API_KEY}`, "cf-connecting-ip": "203.0.113.9" },
    });
    expect(await refusal(authenticate(env, remote))).toBe("unauthenticated");
    for (const host of ["localhost:8787", "127.0.0.5", "[::1]:9000"])
      expect((await authenticate(env, bearer(`Bearer ${DEV.DEV_API_KEY}`, host))).tenant).toBe("dev");
  });

  it("are enabled by the .dev.vars that wrangler dev reads", async () => {
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(new URL("../../../.dev.vars", import.meta.url), "utf8")).toMatch(/^LOCAL_DEVELOPMENT=true$/m);
  });
});

describe("API keys", () => {
  it("grant no channel, capability or operator role a record does not name", () => {
    const record = {
      key_id: "key_1",
      tenant: "t",
      agent: "a",
      created_at: "",
      role: "tenant",
    } as unknown as Parameters<typeof callerOfKey>[0];
    // "tenant", the agent role's old name, is read as agent.
    expect(callerOfKey(record)).toEqual({ tenant: "t", agent: "a", capabilities: [], channels: [], role: "agent" });
  });
});

describe("JWTs", () => {
  let privateKey: CryptoKey;
  let jwks: { keys: JWK[] };
  beforeAll(async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    privateKey = pair.privateKey;
    jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256" }] };
  });

  const sign = (claims: Record<string, unknown>) =>
    new SignJWT({ tenant: "acme", ...claims })
      .setProtectedHeader({ alg: "ES256", kid: "k1" })
      .setSubject("agent-1")
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime("5m")
      .sign(privateKey);
  const jwtEnv = (vars: Record<string, unknown> = {}) =>
    envOf({ JWT_JWKS: JSON.stringify(jwks), JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE, ...vars });
  const OPERATORS = { JWT_OPERATOR_CLAIM: "groups", JWT_OPERATOR_VALUES: "tool-runtime-operators, sre" };

  it("reach no provider and hold no capability unless their claims say so", async () => {
    const caller = await authenticate(jwtEnv(), bearer(`Bearer ${await sign({})}`));
    expect(caller).toMatchObject({ tenant: "acme", agent: "agent-1", capabilities: [], channels: [], role: "agent" });
    const granted = await authenticate(
      jwtEnv(),
      bearer(`Bearer ${await sign({ channels: ["std"], scope: "network:api.example.com" })}`),
    );
    expect(granted).toMatchObject({ capabilities: ["network:api.example.com"], channels: ["std"] });
  });

  it("never make an operator of a token's own role claim", async () => {
    expect((await authenticate(jwtEnv(), bearer(`Bearer ${await sign({ role: "admin" })}`))).role).toBe("agent");
    expect((await authenticate(jwtEnv(OPERATORS), bearer(`Bearer ${await sign({ role: "admin" })}`))).role).toBe(
      "agent",
    );
  });

  it("carry the tenant roles the identity provider grants, and read the old name tenant as agent", async () => {
    for (const [claim, role] of [
      ["tenant_admin", "tenant_admin"],
      ["approver", "approver"],
      ["tenant", "agent"],
      ["agent", "agent"],
      ["root", "agent"],
    ]) {
      expect((await authenticate(jwtEnv(), bearer(`Bearer ${await sign({ role: claim })}`))).role).toBe(role);
    }
  });

  it("make an operator of the claim and value the configuration names, as a string or in a list", async () => {
    const env = jwtEnv(OPERATORS);
    expect((await authenticate(env, bearer(`Bearer ${await sign({ groups: ["staff", "sre"] })}`))).role).toBe("admin");
    expect((await authenticate(env, bearer(`Bearer ${await sign({ groups: "tool-runtime-operators" })}`))).role).toBe(
      "admin",
    );
    expect((await authenticate(env, bearer(`Bearer ${await sign({ groups: ["staff"] })}`))).role).toBe("agent");
    const bySubject = jwtEnv({ JWT_OPERATOR_CLAIM: "sub", JWT_OPERATOR_VALUES: "agent-1" });
    expect((await authenticate(bySubject, bearer(`Bearer ${await sign({})}`))).role).toBe("admin");
  });

  it("refuse half an operator setting when the configuration is loaded", () => {
    expect(() => parseConfig(jwtEnv({ JWT_OPERATOR_CLAIM: "groups" }))).toThrow(ConfigError);
    expect(() => parseConfig(jwtEnv({ JWT_OPERATOR_VALUES: "sre" }))).toThrow(ConfigError);
  });
});
