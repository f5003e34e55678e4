/** What a token of an OAuth grant may do: never more than the key that made the grant does now (src/oauth/grant.ts). */
import { describe, expect, it } from "vitest";
import type { Caller } from "../../../src/contract.ts";
import { callerOfGrant, choiceProblem, narrowChannels, type GrantProps } from "../../../src/oauth/grant.ts";
import { grantUserOf, isOAuthAccessToken } from "../../../src/oauth/endpoints.ts";

const key = (over: Partial<Caller> = {}): Caller => ({
  tenant: "acme",
  agent: "ada",
  capabilities: ["network:*"],
  channels: ["std", "lab"],
  role: "tenant_admin",
  ...over,
});
const props = (over: Partial<GrantProps> = {}): GrantProps => ({
  tenant: "acme",
  agent: "ada",
  key_id: "key_1",
  key_hash: "h",
  channels: ["std"],
  resource: "https://rt.example/mcp",
  ...over,
});

describe("callerOfGrant", () => {
  it("calls as the key's agent with the key's capabilities, in the agent role only", () => {
    expect(callerOfGrant(props(), key())).toEqual({
      tenant: "acme",
      agent: "ada",
      capabilities: ["network:*"],
      channels: ["std"],
      role: "agent",
    });
  });

  it("keeps only the granted channels the key still allows", () => {
    expect(callerOfGrant(props({ channels: ["std", "lab"] }), key({ channels: ["lab"] }))?.channels).toEqual(["lab"]);
    expect(callerOfGrant(props({ channels: ["*"] }), key({ channels: ["lab"] }))?.channels).toEqual(["lab"]);
    expect(callerOfGrant(props({ channels: ["std"] }), key({ channels: ["*"] }))?.channels).toEqual(["std"]);
  });

  it("limits a bundle grant to its bundle, and to none once the key is limited to others", () => {
    const bundle = props({ channels: undefined, bundle: "research" });
    expect(callerOfGrant(bundle, key())?.bundles).toEqual(["research"]);
    expect(callerOfGrant(bundle, key({ bundles: ["ops"] }))?.bundles).toEqual([]);
  });

  it("stands for nobody when the key is another tenant's or agent's now", () => {
    expect(callerOfGrant(props(), key({ tenant: "other" }))).toBeUndefined();
    expect(callerOfGrant(props(), key({ agent: "bob" }))).toBeUndefined();
  });
});

describe("narrowChannels", () => {
  it("gives nothing the key lacks", () => {
    expect(narrowChannels(["a", "b"], ["b", "c"])).toEqual(["b"]);
    expect(narrowChannels(["a"], [])).toEqual([]);
  });
});

describe("choiceProblem", () => {
  it("refuses a channel the key does not allow, and no channel at all", () => {
    expect(choiceProblem({ channels: ["community"] }, key(), [])).toBe("the key does not allow community");
    expect(choiceProblem({ channels: [] }, key(), [])).toMatch(/at least one/);
    expect(choiceProblem({ channels: ["std"] }, key(), [])).toBeUndefined();
    expect(choiceProblem({ channels: ["*"] }, key(), [])).toBeUndefined();
  });

  it("refuses a bundle that is not there, or not the limited key's", () => {
    expect(choiceProblem({ bundle: "x" }, key(), ["y"])).toBe("no bundle x");
    expect(choiceProblem({ bundle: "y" }, key({ bundles: ["z"] }), ["y", "z"])).toMatch(/not limited to bundle y/);
    expect(choiceProblem({ bundle: "z" }, key({ bundles: ["z"] }), ["y", "z"])).toBeUndefined();
  });
});

describe("the token's shape", () => {
  it("tells the authorization server's tokens from API keys and JWTs", () => {
    expect(isOAuthAccessToken("acme:g1:s3cr3t")).toBe(true);
    expect(isOAuthAccessToken("trt_abcDEF-_")).toBe(false);
    expect(isOAuthAccessToken("eyJh.eyJz.c2ln")).toBe(false);
    expect(isOAuthAccessToken(`${grantUserOf("a.b:c")}:g:s`)).toBe(true);
  });

  it("names a tenant without a colon", () => {
    expect(grantUserOf("team:one")).not.toContain(":");
  });
});
