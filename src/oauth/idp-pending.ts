/**
 * A sign-in at the identity provider under way (docs/oauth.md#signing-in-through-the-identity-provider):
 * between the consent page sending the browser to the provider and the provider sending it
 * back to the callback, the client's authorization request, the PKCE verifier and the nonce
 * wait in OAUTH_KV under the round trip's `state`, for ten minutes, used once.
 *
 * The `state` travels through the browser's address bar and the provider, so it alone finishes
 * nothing: the entry also holds the hash of a random value in a cookie of the browser that
 * began (HttpOnly, SameSite=Lax so that it comes along on the provider's top-level redirect
 * back). A callback with another browser's state, as a forged link would bring, is refused.
 * One cookie serves every sign-in of a browser, so two tabs do not undo each other.
 */

/** The client's request, the verifier and the nonce of one round trip to the identity provider. */
export interface PendingSignIn {
  /** The consent page's query: the client's authorization request, parsed again on return. */
  query: string;
  client_id: string;
  /** PKCE (RFC 7636): sent to the token endpoint, its S256 challenge to the authorization endpoint. */
  verifier: string;
  /** Sent to the provider, and must come back in the ID token (OpenID Connect Core §3.1.2.1). */
  nonce: string;
  /** SHA-256 (hex) of the browser's cookie value. */
  browser: string;
  /** Milliseconds since the epoch: after this the callback refuses it. */
  expires_at: number;
}

/** A person has ten minutes at the identity provider, as on the consent page's forms. */
export const PENDING_TTL_S = 600;
/** KV removes the entry a minute after it expires, so a late callback still finds the request to start again from. */
const KV_TTL_S = PENDING_TTL_S + 60;
const COOKIE = "__Host-trt-idp";
/** Over plain http (local development on loopback) a browser refuses the `__Host-` prefix's Secure cookie. */
const LOCAL_COOKIE = "trt-idp";
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** 256 random bits, base64url: a state, a nonce, a verifier, a cookie value. */
export function randomToken(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

export function isToken(value: string): boolean {
  return TOKEN.test(value);
}

/** PKCE S256: base64url(SHA-256(verifier)). */
export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** The KV key of the sign-in whose state is `state`. */
export function pendingKey(state: string): string {
  return `idp-pending:${state}`;
}

/**
 * The browser's cookie value, and the Set-Cookie header that keeps it ten more minutes: the one
 * it already has, or a new one.
 */
export function bindBrowser(request: Request): { value: string; setCookie: string } {
  const https = new URL(request.url).protocol === "https:";
  const value = browserOf(request) ?? randomToken();
  const attributes = https ? "Path=/; Secure" : "Path=/";
  return {
    value,
    setCookie: `${https ? COOKIE : LOCAL_COOKIE}=${value}; ${attributes}; HttpOnly; SameSite=Lax; Max-Age=${PENDING_TTL_S}`,
  };
}

/** Stores a new sign-in under a new state, bound to the browser `cookie`; returns the state. */
export async function putPending(
  env: Env,
  entry: Omit<PendingSignIn, "browser" | "expires_at">,
  cookie: string,
): Promise<string> {
  const state = randomToken();
  const stored: PendingSignIn = {
    ...entry,
    browser: await sha256Hex(cookie),
    expires_at: Date.now() + PENDING_TTL_S * 1000,
  };
  await env.OAUTH_KV.put(pendingKey(state), JSON.stringify(stored), { expirationTtl: KV_TTL_S });
  return state;
}

export async function findPending(env: Env, state: string): Promise<PendingSignIn | undefined> {
  if (!isToken(state)) return undefined;
  return (await env.OAUTH_KV.get<PendingSignIn>(pendingKey(state), "json")) ?? undefined;
}

export async function dropPending(env: Env, state: string): Promise<void> {
  await env.OAUTH_KV.delete(pendingKey(state));
}

/** Whether `request` comes from the browser that began `pending`. */
export async function fromSameBrowser(request: Request, pending: PendingSignIn): Promise<boolean> {
  const value = browserOf(request);
  return value !== undefined && (await sha256Hex(value)) === pending.browser;
}

function browserOf(request: Request): string | undefined {
  const name = new URL(request.url).protocol === "https:" ? COOKIE : LOCAL_COOKIE;
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [k, v] = part.trim().split("=", 2);
    if (k === name && v !== undefined && isToken(v)) return v;
  }
  return undefined;
}

async function sha256Hex(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}
