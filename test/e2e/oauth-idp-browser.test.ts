/**
 * Signing in on the consent page through the identity provider, in a real Chromium under
 * wrangler dev (docs/oauth.md#signing-in-through-the-identity-provider): what workerd's tests
 * only simulate, the browser's cookie and the provider's cross-site redirect back. A tiny
 * OpenID Connect provider listens on the stack's IdP port (the runtime knows it as
 * OAUTH_IDP_*): its page has a "Sign in" button, and its token endpoint checks the PKCE
 * verifier, redirect URI and client id as a provider would, and answers an ID token signed
 * with the stack's JWT key. An MCP client registers, a person signs in there, chooses a
 * channel and allows; the client's token calls a tool as the provider's subject in the tenant
 * its claim names. And another browser, with the state but not the cookie, is refused.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { importJWK, SignJWT } from "jose";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { launchBrowser, tabPerTest } from "./browser.ts";
import { freePort } from "./free-port.ts";
import { asAdmin, baseUrl, bearer, ROOMY } from "./http.ts";
import { MCP_URL, modern } from "./mcp.ts";
import { provided } from "./stack.ts";

const IDP_PORT = provided("idpPort");
const IDP_CLIENT_ID = provided("idpClientId");
const IDP_NAME = provided("idpName");
/** The runtime's only redirect URI at the provider: its origin and the fixed callback path. */
const RUNTIME_CALLBACK = `${baseUrl}/oauth/idp/callback`;

/** Who the provider signs in next (each test sets it): the ID token's `sub` and tenant claim. */
let person = { sub: "", tenant: "" };
/** What the provider's /authorize saw, by the code it handed out (used once at /token). */
const issued = new Map<string, { challenge: string; redirectUri: string; nonce: string }>();
/** The `state` of each sign-in that reached the provider's page, in order. */
const states: string[] = [];
/** Each token request's answer status this test, in order: a refused one fails the test. */
const tokenAnswers: number[] = [];

const html = (body: string) => `<!doctype html><title>${IDP_NAME}</title><h1>${IDP_NAME}</h1>${body}`;
const attr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

async function idToken(nonce: string): Promise<string> {
  const key = provided("jwtPrivateKey");
  return new SignJWT({ tenant: person.tenant, nonce, email: `${person.sub}@example.com`, channels: ["std", "lab"] })
    .setProtectedHeader({ alg: "ES256", kid: key.kid!, typ: "JWT" })
    .setIssuer(provided("jwtIssuer"))
    .setAudience(IDP_CLIENT_ID)
    .setSubject(person.sub)
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(await importJWK(key, "ES256"));
}

/** The identity provider: `/authorize` (a page with a button back to the runtime) and `/token`. */
const idp: Server = createServer(async (req, res) => {
  const url = new URL(req.url!, `http://${req.headers.host}`);
  if (req.method === "GET" && url.pathname === "/authorize") {
    const q = url.searchParams;
    // Only what a provider would accept from this client: its id, its registered redirect URI, S256.
    const ok =
      q.get("client_id") === IDP_CLIENT_ID &&
      q.get("response_type") === "code" &&
      q.get("redirect_uri") === RUNTIME_CALLBACK &&
      q.get("code_challenge_method") === "S256" &&
      (q.get("scope") ?? "").split(" ").includes("openid");
    if (!ok) return void res.writeHead(400, { "content-type": "text/plain" }).end(`bad request: ${url.search}`);
    const code = randomBytes(16).toString("hex");
    issued.set(code, { challenge: q.get("code_challenge")!, redirectUri: RUNTIME_CALLBACK, nonce: q.get("nonce")! });
    states.push(q.get("state")!);
    // A GET form: the browser goes back to the runtime's callback when the person clicks (RFC 9207's `iss` too).
    const fields = { code, state: q.get("state")!, iss: provided("jwtIssuer") };
    const hidden = Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${attr(v)}">`)
      .join("");
    res.writeHead(200, { "content-type": "text/html" });
    return void res.end(
      html(`<form method="get" action="${attr(RUNTIME_CALLBACK)}">${hidden}<button>Sign in</button></form>`),
    );
  }
  if (req.method === "POST" && url.pathname === "/token") {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const form = new URLSearchParams(raw);
    const sent = issued.get(form.get("code") ?? "");
    issued.delete(form.get("code") ?? "");
    const verifier = form.get("code_verifier") ?? "";
    const ok =
      sent !== undefined &&
      form.get("grant_type") === "authorization_code" &&
      form.get("client_id") === IDP_CLIENT_ID &&
      form.get("redirect_uri") === sent.redirectUri &&
      createHash("sha256").update(verifier).digest("base64url") === sent.challenge;
    tokenAnswers.push(ok ? 200 : 400);
    res.writeHead(ok ? 200 : 400, { "content-type": "application/json", "cache-control": "no-store" });
    return void res.end(
      JSON.stringify(
        ok
          ? { access_token: "unused", token_type: "Bearer", expires_in: 300, id_token: await idToken(sent.nonce) }
          : { error: "invalid_grant" },
      ),
    );
  }
  res.writeHead(404).end();
});

/** The MCP client's own loopback redirect URI: it records each query it is sent. */
const clientPort = await freePort();
const CLIENT_REDIRECT = `http://127.0.0.1:${clientPort}/callback`;
const clientCallbacks: URLSearchParams[] = [];
const client: Server = createServer((req, res) => {
  // Only the redirect itself: Chromium also asks this origin for /favicon.ico, and the other test's
  // sign-in may reach this server too (both are counted out below).
  const url = new URL(req.url!, CLIENT_REDIRECT);
  if (url.pathname === "/callback") clientCallbacks.push(url.searchParams);
  res.writeHead(200, { "content-type": "text/plain" }).end("You are signed in; you may close this page.");
});

const listen = (server: Server, port: number) => new Promise<void>((done) => server.listen(port, "127.0.0.1", done));
const close = (server: Server) => new Promise<void>((done) => server.close(() => done()));
beforeAll(() => Promise.all([listen(idp, IDP_PORT), listen(client, clientPort)]));
afterAll(() => Promise.all([close(idp), close(client)]));

let page: Page;
tabPerTest((tab) => (page = tab));
beforeEach(() => {
  tokenAnswers.length = 0;
  clientCallbacks.length = 0;
});

/** Registers the MCP client and opens its authorization request in `page`, up to the provider's page: the verifier. */
async function toProvider(): Promise<{ clientId: string; verifier: string }> {
  const registered = await fetch(`${baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "e2e IdP client",
      redirect_uris: [CLIENT_REDIRECT],
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  expect(registered.status).toBe(201);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const verifier = randomBytes(32).toString("base64url");
  await page.goto(
    `${baseUrl}/console/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CLIENT_REDIRECT,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      state: "app-state",
      resource: MCP_URL,
    })}`,
  );
  // The API-key form stays beside the provider's button.
  await page.getByLabel("Your API key").waitFor();
  await page.getByRole("button", { name: `Sign in with ${IDP_NAME}` }).click();
  await page.getByRole("heading", { name: IDP_NAME }).waitFor();
  expect(new URL(page.url()).host).toBe(`localhost:${IDP_PORT}`);
  return { clientId, verifier };
}

/** A fresh tenant's admin key; `remove` revokes the tenant's grants and deletes the keys minted here. */
async function tenantAdmin(tenant: string) {
  const keyIds: string[] = [];
  const mint = async (fields: Record<string, unknown>) => {
    const res = await asAdmin("POST", "/v1/admin/keys", { tenant, ...fields });
    expect(res.status).toBe(201);
    keyIds.push(res.body.key_id);
    return res.body.key as string;
  };
  const admin = await mint({ agent: "ops", role: "tenant_admin" });
  const grants = async () =>
    ((await (await fetch(`${baseUrl}/v1/oauth/grants`, { headers: bearer(admin) })).json()) as { grants: any[] })
      .grants;
  return {
    mint,
    grants,
    async remove() {
      for (const g of await grants())
        await fetch(`${baseUrl}/v1/oauth/grants/${g.grant_id}`, { method: "DELETE", headers: bearer(admin) });
      for (const id of keyIds) await asAdmin("DELETE", `/v1/admin/keys/${id}`);
    },
  };
}

/** Waits for the runtime's callback page: the choice of what to allow, or its refusal (then fails with what it says). */
async function backOnRuntime(): Promise<void> {
  await page.getByRole("button", { name: "Allow" }).or(page.getByRole("alert")).first().waitFor();
  expect(await page.getByRole("alert").allTextContents()).toEqual([]);
}

describe("signing in on the consent page through the identity provider, in a browser", () => {
  it("signs a person in at the provider, grants a channel, and the client's token calls a tool as them", async () => {
    person = { sub: `person-${randomUUID().slice(0, 8)}`, tenant: `idp-e2e-${randomUUID().slice(0, 8)}` };
    const tenant = await tenantAdmin(person.tenant);
    try {
      const { clientId, verifier } = await toProvider();
      await page.getByRole("button", { name: "Sign in", exact: true }).click();

      // Back on the runtime's callback (the cookie came along): who signed in, and the choice.
      await backOnRuntime();
      expect(page.url()).toMatch(new RegExp(`^${RUNTIME_CALLBACK}\\?`));
      // The callback's choice is the consent page's, in the console's shell: its stylesheet, no script.
      expect(await page.locator('link[rel="stylesheet"][href^="/console/assets/"]').count()).toBe(1);
      expect(await page.locator("script").count()).toBe(0);
      const signedIn = await page.locator("p", { hasText: "Signed in with" }).textContent();
      expect(signedIn).toContain(`Signed in with ${IDP_NAME} as ${person.sub}@example.com`);
      expect(signedIn).toContain(`agent ${person.sub} of tenant ${person.tenant}`);
      expect(tokenAnswers).toEqual([200]);

      // Only the std channel (the ID token allows std and lab).
      await page.getByLabel("Only these channels:").check();
      await page.getByLabel("lab", { exact: true }).uncheck();
      await page.getByRole("button", { name: "Allow" }).click();
      await expect.poll(() => clientCallbacks.length, { timeout: 15_000 }).toBe(1);
      const back = clientCallbacks[0];
      expect(back.get("state")).toBe("app-state");
      expect(back.get("error")).toBeNull();

      const token = await fetch(`${baseUrl}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: back.get("code")!,
          redirect_uri: CLIENT_REDIRECT,
          client_id: clientId,
          code_verifier: verifier,
          resource: MCP_URL,
        }),
      });
      const tokens = (await token.json()) as { access_token?: string };
      expect(token.status, JSON.stringify(tokens)).toBe(200);

      const called = await modern(
        "tools/call",
        { name: "math.evaluate", arguments: { expression: "6 * 7" }, _meta: { "io.tool-runtime/limits": ROOMY } },
        { key: tokens.access_token! },
      );
      expect(called.status, JSON.stringify(called.body)).toBe(200);
      expect(called.body.result.structuredContent).toEqual({ value: 42 });

      // Attributed to the provider's subject in the tenant its claim names: that agent's own key
      // reads the execution, another agent's of the same tenant does not.
      const id = called.body.result._meta["io.tool-runtime/execution_id"];
      const read = async (key: string) =>
        (await fetch(`${baseUrl}/v1/executions/${id}`, { headers: bearer(key) })).status;
      expect(await read(await tenant.mint({ agent: person.sub }))).toBe(200);
      expect(await read(await tenant.mint({ agent: "someone-else" }))).toBe(404);
      expect(await tenant.grants()).toEqual([
        expect.objectContaining({
          client_id: clientId,
          agent: person.sub,
          key_id: "idp:idp.test.invalid",
          channels: ["std"],
        }),
      ]);
    } finally {
      await tenant.remove();
    }
  });

  it("refuses the provider's answer in another browser, which has the state but not the cookie", async () => {
    person = { sub: "nobody", tenant: `idp-e2e-${randomUUID().slice(0, 8)}` };
    await toProvider();
    const other = await launchBrowser();
    try {
      const res = await other.page.goto(
        `${RUNTIME_CALLBACK}?${new URLSearchParams({ code: "x", state: states.at(-1)! })}`,
      );
      expect(res?.status()).toBe(400);
      expect(await other.page.getByRole("alert").textContent()).toContain("was started in another browser");
    } finally {
      await other.close();
    }
    // The sign-in is left to the browser that began it: there it goes on.
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await backOnRuntime();
    expect(await page.locator("p", { hasText: "Signed in with" }).textContent()).toContain(`tenant ${person.tenant}`);
    // Exchanged once, by the browser that began it; the other one's visit never reached the provider.
    expect(tokenAnswers).toEqual([200]);
  });
});
