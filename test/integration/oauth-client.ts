/**
 * An OAuth client's side of the runtime's authorization server, for the workerd tests
 * (test/integration/oauth.test.ts): registration, the consent page's two forms, the token
 * endpoint with PKCE, and MCP requests with a bearer credential, each against an environment
 * the test chooses.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import worker from "../../src/index.ts";
import { mcpBody } from "./worker-http.ts";

export const REDIRECT = "http://127.0.0.1:8976/callback";
export const RESOURCE = "http://localhost/mcp";
export const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** One request to the Worker with `e` as its environment; background work is awaited. */
export async function fetchWith(e: Env, path: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, { redirect: "manual", ...init }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    e,
    ctx,
  );
  const body = await res.arrayBuffer();
  await waitOnExecutionContext(ctx);
  return new Response(body, { status: res.status, headers: res.headers });
}

export const form = (fields: Record<string, string | string[]>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) params.append(k, one);
  return { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: params.toString() };
};

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function pkce() {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(
    new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))),
  );
  return { verifier, challenge };
}

export async function register(e: Env = env): Promise<string> {
  const res = await fetchWith(e, "/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test MCP client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

export interface Signed {
  clientId: string;
  verifier: string;
  code: string;
}

/** The consent page's address for `clientId`: PKCE S256 (a fresh challenge unless given), `state`, a `resource` if any, REDIRECT unless another redirect URI is given. */
export async function authorizePath(
  clientId: string,
  o: { state: string; challenge?: string; resource?: string; redirectUri?: string },
): Promise<string> {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: o.redirectUri ?? REDIRECT,
    code_challenge: o.challenge ?? (await pkce()).challenge,
    code_challenge_method: "S256",
    state: o.state,
    ...(o.resource ? { resource: o.resource } : {}),
  });
  return `/console/authorize?${query}`;
}

/** Registration, the consent page's two forms (sign in, then choose), and the code it redirects with. */
export async function authorize(
  key: string,
  choice: Record<string, string | string[]>,
  e: Env = env,
  resource = RESOURCE,
): Promise<Signed> {
  const clientId = await register(e);
  const { verifier, challenge } = await pkce();
  const path = await authorizePath(clientId, { state: "st-1", challenge, resource });
  const page = await fetchWith(e, path);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("Test MCP client");

  const signedIn = await fetchWith(e, path, form({ step: "sign_in", api_key: key }));
  expect(signedIn.status).toBe(200);
  const ticket = /name="ticket" value="([0-9a-f]{32})"/.exec(await signedIn.text())?.[1];
  expect(ticket).toBeDefined();

  const allowed = await fetchWith(e, path, form({ step: "consent", ticket: ticket!, decision: "allow", ...choice }));
  expect(allowed.status).toBe(302);
  const back = new URL(allowed.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get("state")).toBe("st-1");
  return { clientId, verifier, code: back.searchParams.get("code")! };
}

export async function token(fields: Record<string, string>, e: Env = env) {
  const res = await fetchWith(e, "/oauth/token", form(fields));
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

export function exchange(s: Signed, verifier = s.verifier, e: Env = env, resource = RESOURCE) {
  return token(
    {
      grant_type: "authorization_code",
      code: s.code,
      redirect_uri: REDIRECT,
      client_id: s.clientId,
      code_verifier: verifier,
      resource,
    },
    e,
  );
}

/** A 2026-07-28 MCP request with `credential` as its bearer, to the Worker with environment `e`. */
export async function mcp(credential: string, method: string, params: Record<string, unknown> = {}, e: Env = env) {
  const res = await fetchWith(e, "/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${credential}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.tool-runtime/limits": { timeout_ms: 20_000 },
        },
      },
    }),
  });
  return { status: res.status, headers: res.headers, body: await mcpBody(res) };
}

export const evaluate = (credential: string, e: Env = env) =>
  mcp(credential, "tools/call", { name: "math.evaluate", arguments: { expression: "6 * 7" } }, e);
