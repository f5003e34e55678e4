/**
 * A person's browser signing in on the consent page through the identity provider, for
 * test/integration/oauth-idp.test.ts: the runtime configured for the stand-in provider
 * (test/fixtures/idp-site.js at https://idp.example, reached through the outbound service), the
 * button's form, the trip to the provider and back to the callback, with the browser's cookie.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { authorizePath, fetchWith, form, pkce, register, RESOURCE } from "./oauth-client.ts";

export const IDP = "https://idp.example";
export const IDP_NAME = "Example IdP";
export const CALLBACK = "http://localhost/oauth/idp/callback";

/** The bound environment with JWTs from the stand-in provider, and signing in through it on the consent page. */
export const idpEnv: Env = Object.assign({}, env, {
  JWT_JWKS_URL: `${IDP}/jwks`,
  JWT_ISSUER: IDP,
  JWT_AUDIENCE: RESOURCE,
  JWT_TENANT_CLAIM: "org",
  JWT_DEFAULT_CHANNELS: "std",
  OAUTH_IDP_CLIENT_ID: "trt-runtime",
  OAUTH_IDP_CLIENT_SECRET: "trt-idp-secret",
  OAUTH_IDP_AUTHORIZATION_URL: `${IDP}/authorize`,
  OAUTH_IDP_TOKEN_URL: `${IDP}/token`,
  OAUTH_IDP_NAME: IDP_NAME,
});

/** Who signs in at the provider: the ID token's claims, what to put there instead of the provider's own, or a refusal. */
export interface Person {
  claims?: Record<string, unknown>;
  override?: Record<string, unknown>;
  deny?: boolean;
}

export interface Started {
  clientId: string;
  /** The consent page of the client's request. */
  path: string;
  /** The client's PKCE verifier. */
  verifier: string;
  /** The browser's cookie, as it sends it back: `name=value`. */
  cookie: string;
  /** Where the runtime sent the browser: the provider's authorization endpoint. */
  to: URL;
  state: string;
}

/** A new client's consent page, and its "Sign in with" button pressed (in a browser holding `cookie`, if given). */
export async function startSignIn(cookie?: string, e: Env = idpEnv): Promise<Started> {
  const clientId = await register(e);
  const { verifier, challenge } = await pkce();
  const path = await authorizePath(clientId, { state: "st-idp", challenge, resource: RESOURCE });
  const page = await fetchWith(e, path);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(`Sign in with ${IDP_NAME}`);
  const button = form({ step: "idp" });
  const res = await fetchWith(e, path, { ...button, headers: { ...button.headers, ...(cookie ? { cookie } : {}) } });
  expect(res.status).toBe(303);
  const set = /^(trt-idp=[A-Za-z0-9_-]{43});/.exec(res.headers.get("set-cookie") ?? "");
  expect(set).not.toBeNull();
  const to = new URL(res.headers.get("location")!);
  return { clientId, path, verifier, cookie: set![1], to, state: to.searchParams.get("state")! };
}

/** The person signs in at the provider, which sends the browser back: the callback URL it sends it to. */
export async function atProvider(to: URL, person: Person): Promise<URL> {
  const url = new URL(to);
  url.searchParams.set("person", JSON.stringify(person));
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status).toBe(302);
  const back = new URL(res.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
  return back;
}

/** The browser holding `cookie` arrives at the callback URL `back`. */
export async function callback(back: URL, cookie: string | undefined, e: Env = idpEnv) {
  const res = await fetchWith(e, `${back.pathname}${back.search}`, { headers: cookie ? { cookie } : {} });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

/** A person of tenant `org` with subject `sub`, as the provider puts them in an ID token. */
export const personOf = (org: string, sub: string, extra: Record<string, unknown> = {}): Person => ({
  claims: { sub, org, email: `${sub}@example.com`, ...extra },
});
