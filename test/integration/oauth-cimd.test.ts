/**
 * Client ID Metadata Documents in workerd (docs/oauth.md#client-id-metadata-documents): a client
 * whose client_id is the https URL of its metadata document, which a stand-in for the client's
 * website serves over HTTP (test/fixtures/cimd-site.js, behind the Worker's outbound service). The
 * metadata advertises it; such a client goes through consent (its name from the document, its
 * domain shown), exchanges its code with PKCE S256 and calls a tool with the token. A document
 * that cannot be fetched, or is gone by the token request, a redirect URI the document does not
 * list, and a client_id that is not https get an OAuth error and no grant. OAUTH_CIMD=off turns
 * it off and leaves dynamic registration.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintKey, send } from "./worker-http.ts";
import {
  authorizePath,
  evaluate,
  fetchWith,
  form,
  pkce,
  REDIRECT,
  register,
  RESOURCE,
  token,
  unique,
} from "./oauth-client.ts";

const SITE = "https://cimd-client.example";

/** Puts a client's metadata document on the site; its URL is the client's id. */
async function publish(name: string): Promise<string> {
  const clientId = `${SITE}/clients/${unique("app")}.json`;
  const res = await fetch(clientId, {
    method: "PUT",
    body: JSON.stringify({
      client_id: clientId,
      client_name: `${name} from its document`,
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  expect(res.status).toBe(204);
  return clientId;
}

async function people(prefix: string) {
  const tenant = unique(prefix);
  return {
    key: await mintKey(env, tenant, { agent: "person", channels: ["*"] }),
    admin: await mintKey(env, tenant, { agent: "ops", role: "tenant_admin" }),
  };
}

async function grantsOf(admin: string): Promise<unknown[]> {
  const res = await send(env, "GET", "/v1/oauth/grants", admin);
  expect(res.status).toBe(200);
  return res.json.grants;
}

/** The consent page's two forms: sign in with `key`, then allow every channel (a made-up ticket when no page gave one). */
async function signInAndAllow(path: string, key: string, e: Env = env): Promise<Response> {
  const signedIn = await fetchWith(e, path, form({ step: "sign_in", api_key: key }));
  const ticket = /name="ticket" value="([0-9a-f]{32})"/.exec(await signedIn.text())?.[1] ?? "0".repeat(32);
  return fetchWith(e, path, form({ step: "consent", ticket, decision: "allow", grant: "all" }));
}

/** Consent for a published client: the code it comes back with, and its PKCE verifier. */
async function consented(clientId: string, key: string) {
  const { verifier, challenge } = await pkce();
  const path = await authorizePath(clientId, { state: "st-cimd", challenge, resource: RESOURCE });
  const allowed = await signInAndAllow(path, key);
  expect(allowed.status).toBe(302);
  const back = new URL(allowed.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("st-cimd");
  expect(back.searchParams.get("iss")).toBe("http://localhost");
  return { code: back.searchParams.get("code")!, verifier, path };
}

const exchange = (clientId: string, code: string, verifier: string) =>
  token({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource: RESOURCE,
  });

describe("a client whose client_id is its metadata document's URL", () => {
  it("is advertised in the authorization-server metadata, beside dynamic registration", async () => {
    const res = await fetchWith(env, "/.well-known/oauth-authorization-server");
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      client_id_metadata_document_supported: true,
      registration_endpoint: "http://localhost/oauth/register",
      code_challenge_methods_supported: ["S256"],
    });
  });

  it("consents under the document's name and domain, exchanges its code with PKCE, and calls a tool", async () => {
    const { key, admin } = await people("cimd");
    const clientId = await publish("Acme Agent");
    const page = await fetchWith(env, await authorizePath(clientId, { state: "s", resource: RESOURCE }));
    expect(page.status).toBe(200);
    // The name only the document holds, and the domain that served it.
    expect(await page.text()).toContain(
      "<strong>Acme Agent from its document</strong> of <code>cimd-client.example</code>",
    );

    const { code, verifier } = await consented(clientId, key);
    const issued = await exchange(clientId, code, verifier);
    expect(issued.status).toBe(200);
    expect(issued.body).toMatchObject({ token_type: "bearer", access_token: expect.any(String) });
    const called = await evaluate(issued.body.access_token);
    expect(called.status).toBe(200);
    expect(called.body.result.structuredContent).toEqual({ value: 42 });
    expect(await grantsOf(admin)).toEqual([
      expect.objectContaining({
        client_id: clientId,
        client_name: "Acme Agent from its document",
        agent: "person",
        channels: ["*"],
      }),
    ]);
  });

  it("refuses a client whose document cannot be fetched: an error on the page, never a redirect, no grant", async () => {
    const { key, admin } = await people("cimd-missing");
    const clientId = `${SITE}/clients/${unique("never-published")}.json`;
    const path = await authorizePath(clientId, { state: "s", resource: RESOURCE });
    const page = await fetchWith(env, path);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(await page.text()).toContain(
      `metadata document (${clientId}) could not be used: Failed to fetch client metadata: HTTP 404`,
    );
    const allowed = await signInAndAllow(path, key);
    expect(allowed.status).toBe(400);
    expect(allowed.headers.get("location")).toBeNull();
    expect(await grantsOf(admin)).toEqual([]);
    // The token endpoint says it in OAuth's words.
    const exchanged = await exchange(clientId, "a-code", (await pkce()).verifier);
    expect(exchanged.status).toBe(401);
    expect(exchanged.body.error).toBe("invalid_client");
  });

  it("issues no token when the document is gone by the token request", async () => {
    const { key } = await people("cimd-gone");
    const clientId = await publish("Vanishing");
    const { code, verifier } = await consented(clientId, key);
    expect((await fetch(clientId, { method: "DELETE" })).status).toBe(204);
    const exchanged = await exchange(clientId, code, verifier);
    expect(exchanged.status).toBe(401);
    expect(exchanged.body).toMatchObject({ error: "invalid_client" });
    expect(exchanged.body.access_token).toBeUndefined();
  });

  it("refuses a redirect URI the document does not list, and never sends the browser there", async () => {
    const { key, admin } = await people("cimd-redirect");
    const clientId = await publish("Redirected");
    const path = await authorizePath(clientId, {
      state: "s",
      resource: RESOURCE,
      redirectUri: "http://127.0.0.1:8976/elsewhere",
    });
    const page = await fetchWith(env, path);
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
    expect(await page.text()).toContain("Invalid redirect URI");
    const allowed = await signInAndAllow(path, key);
    expect(allowed.status).toBe(400);
    expect(allowed.headers.get("location")).toBeNull();
    expect(await grantsOf(admin)).toEqual([]);
  });

  it("takes a client_id that is not https for a registered client's id, which nobody registered", async () => {
    const published = await publish("Plain");
    const page = await fetchWith(
      env,
      await authorizePath(published.replace(/^https:/, "http:"), { state: "s", resource: RESOURCE }),
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("Invalid client_id");
  });

  it("with OAUTH_CIMD off, neither advertises nor fetches documents, and registration goes on", async () => {
    const off = Object.assign({}, env, { OAUTH_CIMD: "off" });
    const meta = (await (await fetchWith(off, "/.well-known/oauth-authorization-server")).json()) as Record<
      string,
      unknown
    >;
    expect(meta.client_id_metadata_document_supported).toBe(false);
    const page = await fetchWith(
      off,
      await authorizePath(await publish("Unwanted"), { state: "s", resource: RESOURCE }),
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("Invalid client_id");
    expect(await register(off)).toEqual(expect.any(String));
  });
});
