/**
 * The runtime as its own OAuth 2.1 authorization server for /mcp, in workerd (docs/oauth.md):
 * a client registers, a person signs in with an API key on the consent page and chooses a
 * channel, the client exchanges the code with its PKCE verifier, calls a tool over /mcp with the
 * access token, refreshes it, and the tenant's admin revokes the grant: the token is refused.
 * Also: a wrong verifier, a token for another resource, a revoked key, a bundle grant, a form
 * from another site, and the old credentials.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintKey, send } from "./worker-http.ts";
import {
  authorize,
  authorizePath,
  evaluate,
  exchange,
  fetchWith,
  form,
  mcp,
  pkce,
  REDIRECT,
  register,
  RESOURCE,
  token,
  unique,
} from "./oauth-client.ts";

describe("signing in an MCP client with OAuth", () => {
  it("registers, consents, exchanges with PKCE, calls, refreshes, and is revoked by the tenant's admin", async () => {
    const tenant = unique("oauth");
    const key = await mintKey(env, tenant, { agent: "person", channels: ["*"] });
    const admin = await mintKey(env, tenant, { agent: "ops", role: "tenant_admin" });
    const signed = await authorize(key, { grant: "channels", channel: "std" });

    const issued = await exchange(signed);
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: "bearer", access_token: expect.any(String) });
    const access = issued.body.access_token as string;

    const called = await evaluate(access);
    expect(called.status).toBe(200);
    expect(called.body.result.structuredContent).toEqual({ value: 42 });
    // Only the granted channel: no lab tool, though the key reaches every provider.
    const listed = (await mcp(access, "tools/list")).body.result.tools.map((t: { name: string }) => t.name);
    expect(listed).toContain("math.evaluate");
    expect(listed.filter((n: string) => n.startsWith("lab."))).toEqual([]);
    // For /mcp only: /v1 does not take it.
    expect((await send(env, "GET", "/v1/tools", access)).status).toBe(401);

    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: issued.body.refresh_token,
      client_id: signed.clientId,
    });
    expect(refreshed.status).toBe(200);
    const renewed = refreshed.body.access_token as string;
    expect(renewed).not.toBe(access);
    expect((await evaluate(renewed)).body.result.structuredContent).toEqual({ value: 42 });

    const grants = await send(env, "GET", "/v1/oauth/grants", admin);
    expect(grants.status).toBe(200);
    expect(grants.json.grants).toEqual([
      expect.objectContaining({
        client_id: signed.clientId,
        client_name: "Test MCP client",
        agent: "person",
        channels: ["std"],
        resource: RESOURCE,
      }),
    ]);
    const grantId = grants.json.grants[0].grant_id;
    // A plain agent may not see them; another tenant's admin does not find it.
    expect((await send(env, "GET", "/v1/oauth/grants", key)).status).toBe(403);
    const stranger = await mintKey(env, unique("oauth-other"), { role: "tenant_admin" });
    expect((await send(env, "DELETE", `/v1/oauth/grants/${grantId}`, stranger)).status).toBe(404);

    const revoked = await send(env, "DELETE", `/v1/oauth/grants/${grantId}`, admin);
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ grant_id: grantId, revoked: true });
    const refused = await evaluate(renewed);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain("resource_metadata=");
    expect((await send(env, "GET", "/v1/oauth/grants", admin)).json.grants).toEqual([]);
  });

  it("refuses a code exchanged with the wrong PKCE verifier", async () => {
    const key = await mintKey(env, unique("oauth-pkce"));
    const signed = await authorize(key, { grant: "all" });
    const wrong = await exchange(signed, (await pkce()).verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
  });

  it("advertises PKCE S256 only, and refuses an authorization without it", async () => {
    const meta = await fetchWith(env, "/.well-known/oauth-authorization-server");
    expect(meta.status).toBe(200);
    const doc = (await meta.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: "http://localhost",
      authorization_endpoint: "http://localhost/console/authorize",
      token_endpoint: "http://localhost/oauth/token",
      registration_endpoint: "http://localhost/oauth/register",
      code_challenge_methods_supported: ["S256"],
    });
    const clientId = await register();
    const plain = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: "a".repeat(43),
      code_challenge_method: "plain",
      state: "s",
    });
    const res = await fetchWith(env, `/console/authorize?${plain}`);
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });

  it("points /mcp's protected-resource metadata at this authorization server", async () => {
    const res = await send(env, "GET", "/.well-known/oauth-protected-resource/mcp");
    expect(res.json.resource).toBe(RESOURCE);
    expect(res.json.authorization_servers[0]).toBe("http://localhost");
  });

  it("refuses a token issued for another resource", async () => {
    // A runtime whose resource is elsewhere issues it, from the same storage.
    const elsewhere = "https://elsewhere.example/mcp";
    const other = Object.assign({}, env, { MCP_RESOURCE: elsewhere });
    const key = await mintKey(env, unique("oauth-aud"));
    const signed = await authorize(key, { grant: "all" }, other, elsewhere);
    const issued = await exchange(signed, signed.verifier, other, elsewhere);
    expect(issued.status).toBe(200);
    expect((await evaluate(issued.body.access_token)).status).toBe(401);
    // And this runtime will not authorize for that resource at all.
    const res = await fetchWith(env, await authorizePath(await register(), { state: "s", resource: elsewhere }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_target");
  });

  it("ends a grant's tokens when its key is revoked, and never reaches past the key", async () => {
    const tenant = unique("oauth-key");
    const res = await send(env, "POST", "/v1/admin/keys", env.DEV_ADMIN_KEY, {
      tenant,
      agent: "person",
      channels: ["lab"],
    });
    const { key, key_id } = res.json;
    // A channel the key does not allow is refused on the page.
    const path = await authorizePath(await register(), { state: "s" });
    const page = await (await fetchWith(env, path, form({ step: "sign_in", api_key: key }))).text();
    const ticket = /name="ticket" value="([0-9a-f]{32})"/.exec(page)![1];
    const refused = await fetchWith(
      env,
      path,
      form({ step: "consent", ticket, decision: "allow", grant: "channels", channel: "std" }),
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("the key does not allow std");

    const signed = await authorize(key, { grant: "all" });
    const access = (await exchange(signed)).body.access_token as string;
    const names = (await mcp(access, "tools/list")).body.result.tools.map((t: { name: string }) => t.name);
    expect(names).toContain("lab.echo");
    expect(names).not.toContain("math.evaluate");
    expect((await send(env, "DELETE", `/v1/admin/keys/${key_id}`, env.DEV_ADMIN_KEY)).status).toBe(200);
    expect((await mcp(access, "tools/list")).status).toBe(401);
  });

  it("sends a denial back to the client as access_denied", async () => {
    const key = await mintKey(env, unique("oauth-deny"));
    const path = await authorizePath(await register(), { state: "s9" });
    const page = await (await fetchWith(env, path, form({ step: "sign_in", api_key: key }))).text();
    const ticket = /name="ticket" value="([0-9a-f]{32})"/.exec(page)![1];
    const denied = await fetchWith(env, path, form({ step: "consent", ticket, decision: "deny" }));
    expect(denied.status).toBe(302);
    const back = new URL(denied.headers.get("location")!);
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("s9");
    expect(await (await fetchWith(env, path, form({ step: "sign_in", api_key: "trt_not-a-key" }))).text()).toContain(
      "That API key is not valid.",
    );
  });

  it("grants one bundle's tools when the person chooses a bundle", async () => {
    const bundle = unique("oauth-bundle");
    expect(
      (await send(env, "PUT", `/v1/admin/bundles/${bundle}`, env.DEV_ADMIN_KEY, { prefixes: ["text."] })).status,
    ).toBe(201);
    try {
      const key = await mintKey(env, unique("oauth-bundle"));
      const signed = await authorize(key, { grant: "bundle", bundle });
      const access = (await exchange(signed)).body.access_token as string;
      const names = (await mcp(access, "tools/list")).body.result.tools.map((t: { name: string }) => t.name);
      expect(names.length).toBeGreaterThan(0);
      expect(names.filter((n: string) => !n.startsWith("text."))).toEqual([]);
    } finally {
      await send(env, "DELETE", `/v1/admin/bundles/${bundle}`, env.DEV_ADMIN_KEY);
    }
  });

  it("refuses the consent forms posted from another site", async () => {
    const key = await mintKey(env, unique("oauth-csrf"));
    const path = await authorizePath(await register(), { state: "s" });
    const posted = form({ step: "sign_in", api_key: key });
    const res = await fetchWith(env, path, {
      ...posted,
      headers: { ...posted.headers, origin: "https://evil.example" },
    });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('name="ticket"');
  });

  it("leaves API keys working on /mcp as before", async () => {
    const key = await mintKey(env, unique("oauth-keys"));
    const res = await evaluate(key);
    expect(res.status).toBe(200);
    expect(res.body.result.structuredContent).toEqual({ value: 42 });
  });
});
