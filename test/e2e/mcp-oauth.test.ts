/**
 * An MCP client that signs in with OAuth, end to end (docs/oauth.md): the official client
 * (`@modelcontextprotocol/client`) with an OAuth client provider finds the runtime's
 * authorization server from /mcp's 401, registers itself, and sends a person to the consent
 * page; a real Chromium signs in there with an API key and allows; the client finishes with
 * the code (PKCE S256, the issuer checked) and calls a tool with its access token. And the
 * official conformance suite's authorization-server scenarios (`conformance authorization`):
 * its metadata checks, and its authorization code grant, where the same browser consents for
 * the suite's registered client and comes back to the suite's own loopback callback. And the
 * metadata offers Client ID Metadata Documents under the shipped configuration.
 */
import { spawn } from "node:child_process";
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { tabPerTest } from "./browser.ts";
import { freePort } from "./free-port.ts";
import { baseUrl } from "./http.ts";
import { CONFORMANCE_SUITE, MCP_URL, newKey, NODE22, ROOT } from "./mcp.ts";

/** Where the client says the browser comes back: nothing listens, the browser tab's route answers it. */
const REDIRECT = "http://127.0.0.1:9/oauth-callback";

/** A client's OAuth state, in memory, as a desktop MCP client keeps it on disk. */
function memoryProvider(): OAuthClientProvider & { authorizationUrl?: URL } {
  const store: { info?: any; tokens?: any; verifier?: string; authorizationUrl?: URL } = {};
  return {
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata() {
      return {
        client_name: "e2e MCP client",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    get authorizationUrl() {
      return store.authorizationUrl;
    },
    clientInformation: () => store.info,
    saveClientInformation: (info) => void (store.info = info),
    tokens: () => store.tokens,
    saveTokens: (tokens) => void (store.tokens = tokens),
    redirectToAuthorization: (url) => void (store.authorizationUrl = url),
    saveCodeVerifier: (verifier) => void (store.verifier = verifier),
    codeVerifier: () => store.verifier!,
  };
}

/** Signs in on the consent page with `key` and allows every channel (the page then redirects). */
async function allow(page: Page, authorizationUrl: string, key: string, client: string): Promise<void> {
  await page.goto(authorizationUrl);
  await expect.poll(() => page.getByText(client).count()).toBeGreaterThan(0);
  await page.getByLabel("Your API key").fill(key);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Allow" }).waitFor();
  await page.getByRole("button", { name: "Allow" }).click();
}

/** Signs in on the consent page with `key`, allows every channel, and answers the redirect: its query. */
async function consent(page: Page, authorizationUrl: URL, key: string): Promise<URLSearchParams> {
  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/plain", body: "signed in" });
  });
  await allow(page, authorizationUrl.toString(), key, "e2e MCP client");
  await expect.poll(() => callback, { timeout: 15_000 }).toBeDefined();
  return callback!.searchParams;
}

/**
 * The consent page is a page of the console (docs/decisions/46-consent-in-console.md): under
 * wrangler dev /console/authorize reaches the Worker past the static assets (no assets' 404, no
 * trailing-slash redirect), and the page is the console's index.html with its stylesheet, which
 * the page's own CSP lets the browser apply, and no script; it links to the Grants page. The
 * old /oauth/authorize sends a client on with its query, keeping a POST a POST.
 */
async function expectConsolePage(page: Page, authorizationUrl: URL): Promise<void> {
  const blocked: string[] = [];
  page.on("console", (m) => void (/Content Security Policy/i.test(m.text()) && blocked.push(m.text())));
  const index = await (await fetch(`${baseUrl}/console/`)).text();
  const stylesheet = /<link rel="stylesheet"[^>]* href="([^"]+)"/.exec(index)?.[1];
  expect(stylesheet, index).toMatch(/^\/console\/assets\/.+\.css$/);

  const res = await page.goto(authorizationUrl.toString());
  expect(res?.status()).toBe(200);
  expect(new URL(page.url()).pathname).toBe("/console/authorize");
  expect(res?.headers()["content-security-policy"]).toBe(
    "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src 'self'; img-src data:",
  );
  expect(await page.locator('link[rel="stylesheet"]').getAttribute("href")).toBe(stylesheet);
  expect(await page.locator("script").count()).toBe(0);
  expect(await page.title()).toBe("Sign in to the Tool Runtime");
  // The console's stylesheet applies: its header's panel colour.
  await expect
    .poll(() => page.locator("header.top").evaluate((e) => getComputedStyle(e).backgroundColor))
    .toBe("rgb(245, 247, 250)");
  expect(await page.getByRole("link", { name: "Grants" }).getAttribute("href")).toBe("/console/#/grants");
  expect(blocked).toEqual([]);

  // Any other /console/ path is the assets' as before: one with no file is their empty 404, with the console's CSP.
  const missing = await fetch(`${baseUrl}/console/no-such-page`);
  expect(missing.status).toBe(404);
  expect(await missing.text()).toBe("");
  expect(missing.headers.get("content-security-policy")).toContain("connect-src 'self'");

  for (const method of ["GET", "POST"]) {
    const moved = await fetch(`${baseUrl}/oauth/authorize${authorizationUrl.search}`, { method, redirect: "manual" });
    expect(moved.status, method).toBe(308);
    expect(moved.headers.get("location")).toBe(`/console/authorize${authorizationUrl.search}`);
  }
}

describe("an MCP client signing in with OAuth", () => {
  let page: Page;
  tabPerTest((tab) => (page = tab));

  it("registers, sends a person through consent in a browser, and calls a tool with its token", async () => {
    const key = await newKey();
    const provider = memoryProvider();
    const first = new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider });
    await expect(
      new Client({ name: "tool-runtime-e2e-oauth", version: "1.0.0" }).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.pathname).toBe("/console/authorize");
    await expectConsolePage(page, authorizationUrl);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(MCP_URL);

    const callback = await consent(page, authorizationUrl, key);
    expect(callback.get("error")).toBeNull();
    await first.finishAuth(callback);
    expect((await provider.tokens())?.access_token).toMatch(/^[^:]+:[^:]+:[^:]+$/);

    const client = new Client({ name: "tool-runtime-e2e-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider }));
    try {
      // A roomy budget, as every other test's call has: an instant tool's own 100 ms can go before
      // dispatch on a loaded machine (docs/contract.md#mcp, `io.tool-runtime/limits`).
      const result = await client.callTool({
        name: "math.evaluate",
        arguments: { expression: "6 * 7" },
        _meta: { "io.tool-runtime/limits": { timeout_ms: 20_000 } },
      });
      expect(result.structuredContent).toEqual({ value: 42 });
    } finally {
      await client.close();
    }
  });
  it("advertises Client ID Metadata Documents under wrangler dev, with the shipped compatibility flag", async () => {
    // The library advertises them only when the Worker runs with global_fetch_strictly_public
    // (wrangler.jsonc); test/integration/oauth-cimd.test.ts signs such a client in.
    const res = await fetch(`${baseUrl}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${baseUrl}/oauth/register`,
    });
  });

  it("passes the conformance suite's authorization-server scenarios, a person consenting in the browser", async () => {
    const key = await newKey();
    const port = await freePort();
    const registered = await fetch(`${baseUrl}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "conformance suite",
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = (await registered.json()) as { client_id: string };
    // Every scenario, in the suite's order: the code grant reads the metadata scenario's answer.
    const suite = spawn(
      NODE22,
      [
        CONFORMANCE_SUITE,
        "authorization",
        "--url",
        baseUrl,
        "--client-id",
        client_id,
        "--resource",
        MCP_URL,
        "--port",
        String(port),
        "--spec-version",
        "2026-07-28",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    suite.stdout.on("data", (d) => (output += d));
    suite.stderr.on("data", (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => suite.once("exit", resolve));
    try {
      // The suite prints the authorization URL for a person to open, and waits for its callback.
      await expect.poll(() => /^http\S+\/console\/authorize\?\S+$/m.test(output), { timeout: 30_000 }).toBe(true);
      await allow(page, output.match(/^http\S+\/console\/authorize\?\S+$/m)![0], key, "conformance suite");
      await expect.poll(() => page.getByText("OK. You can close this page.").count(), { timeout: 15_000 }).toBe(1);
      const code = await exited;
      const report = output.replace(/\x1b\[[0-9;]*m/g, "");
      expect(code, report).toBe(0);
      // Each scenario graded and passed (the suite's summary), none skipped.
      expect(report).toMatch(/^✓ authorization-server-metadata-endpoint: [1-9]\d* passed, 0 failed$/m);
      expect(report).toMatch(/^✓ authorization-code-grant: [1-9]\d* passed, 0 failed$/m);
      expect(report).not.toMatch(/SKIPPED/);
    } finally {
      suite.kill("SIGKILL");
    }
  }, 90_000);
});
