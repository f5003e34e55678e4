/**
 * An MCP client that signs in with OAuth, end to end (docs/oauth.md): the official client
 * (`@modelcontextprotocol/client`) with an OAuth client provider finds the runtime's
 * authorization server from /mcp's 401, registers itself, and sends a person to the consent
 * page; a real Chromium signs in there with an API key and allows; the client finishes with
 * the code (PKCE S256, the issuer checked) and calls a tool with its access token.
 */
import type { OAuthClientProvider } from "@modelcontextprotocol/client";
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { tabPerTest } from "./browser.ts";
import { MCP_URL, newKey } from "./mcp.ts";

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

/** Signs in on the consent page with `key`, allows every channel, and answers the redirect: its query. */
async function consent(page: Page, authorizationUrl: URL, key: string): Promise<URLSearchParams> {
  let callback: URL | undefined;
  await page.route(`${REDIRECT}**`, async (route) => {
    callback = new URL(route.request().url());
    await route.fulfill({ status: 200, contentType: "text/plain", body: "signed in" });
  });
  await page.goto(authorizationUrl.toString());
  await expect.poll(() => page.getByText("e2e MCP client").count()).toBeGreaterThan(0);
  await page.getByLabel("Your API key").fill(key);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByRole("button", { name: "Allow" }).waitFor();
  await page.getByRole("button", { name: "Allow" }).click();
  await expect.poll(() => callback, { timeout: 15_000 }).toBeDefined();
  return callback!.searchParams;
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
    expect(authorizationUrl.pathname).toBe("/oauth/authorize");
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(MCP_URL);

    const callback = await consent(page, authorizationUrl, key);
    expect(callback.get("error")).toBeNull();
    await first.finishAuth(callback);
    expect((await provider.tokens())?.access_token).toMatch(/^[^:]+:[^:]+:[^:]+$/);

    const client = new Client({ name: "tool-runtime-e2e-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: provider }));
    try {
      const result = await client.callTool({ name: "math.evaluate", arguments: { expression: "6 * 7" } });
      expect(result.structuredContent).toEqual({ value: 42 });
    } finally {
      await client.close();
    }
  });
});
