/**
 * Tenants' own tokens for upstreams (docs/contract.md#upstreams), encrypted at rest with AES-GCM (Web
 * Crypto). The key is a Worker secret, named by UPSTREAM_TOKEN_KEY_SECRET (default
 * `UPSTREAM_TOKEN_KEY`): 32 random bytes in base64. Without it no token can be stored.
 *
 * The tenant, the upstream's name and the upstream's address (its URL, or its service binding)
 * are the cipher's additional data, so a sealed token opens only in its own slot: copied to
 * another tenant or another upstream, or kept after the name was registered again somewhere
 * else, it fails to decrypt rather than being sent. A token given for one server never goes to
 * whatever later takes its name; the tenant stores it again for the new one. Sealing and opening happen in the Worker; the store (one Durable Object per
 * tenant) only ever holds ciphertext. A token is never returned by any API and never logged.
 */
import { envValue } from "./config.ts";
import type { UpstreamEndpoint } from "./target.ts";

/** The upstream a token is for: its registered name and where it is. */
export interface TokenUpstream extends UpstreamEndpoint {
  name: string;
}

export interface SealedToken {
  /** Which key sealed it (the first 8 hex digits of the key's SHA-256): a rotated key is noticed, not misused. */
  key_id: string;
  iv: string;
  ciphertext: string;
  updated_at: number;
}

export interface TokenKey {
  id: string;
  key: CryptoKey;
}

export const DEFAULT_KEY_SECRET = "UPSTREAM_TOKEN_KEY";

export class TokenKeyError extends Error {}

const keys = new WeakMap<object, Promise<TokenKey | undefined>>();

/** The key, or undefined when none is configured; a malformed key is an error (it would seal nothing readable). */
export function tokenKey(env: Env): Promise<TokenKey | undefined> {
  let key = keys.get(env);
  if (!key) {
    key = importKey(env);
    keys.set(env, key);
  }
  return key;
}

async function importKey(env: Env): Promise<TokenKey | undefined> {
  const name = envValue(env, "UPSTREAM_TOKEN_KEY_SECRET");
  const secret = envValue(env, typeof name === "string" && name !== "" ? name : DEFAULT_KEY_SECRET);
  if (secret === undefined || secret === "") return undefined;
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = Uint8Array.from(atob(String(secret).trim()), (c) => c.charCodeAt(0));
  } catch {
    throw new TokenKeyError("the upstream token key is not base64");
  }
  if (raw.byteLength !== 32) throw new TokenKeyError("the upstream token key must be 32 bytes (base64)");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
  const id = [...digest.slice(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { id, key: await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]) };
}

/** Where an upstream is, as a token is bound to it: its URL, or its service binding. */
export function upstreamAddress(endpoint: UpstreamEndpoint): string {
  return endpoint.binding !== undefined ? `binding:${endpoint.binding}` : `url:${endpoint.url ?? ""}`;
}

/** Binds a sealed token to its tenant and to its upstream's name and address. */
function slot(tenant: string, upstream: TokenUpstream): Uint8Array<ArrayBuffer> {
  // Copied into a fresh ArrayBuffer: TextEncoder's result is typed over ArrayBufferLike.
  return new Uint8Array(
    new TextEncoder().encode(
      `tool-runtime upstream token 2\u0000${tenant}\u0000${upstream.name}\u0000${upstreamAddress(upstream)}`,
    ),
  );
}

export async function sealToken(
  key: TokenKey,
  tenant: string,
  upstream: TokenUpstream,
  token: string,
  now = Date.now(),
): Promise<SealedToken> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: slot(tenant, upstream) },
    key.key,
    new TextEncoder().encode(token),
  );
  return { key_id: key.id, iv: base64(iv), ciphertext: base64(new Uint8Array(ciphertext)), updated_at: now };
}

/**
 * Tokens opened in this isolate, by everything their opening depends on: the key (the imported
 * key itself, not its short id), the slot
 * (tenant, name, address) and the sealed bytes (a token stored again is sealed with a new IV,
 * so it is another entry). Only the store is read on every call, never a token it no longer
 * holds: a deleted or replaced token is not in the store's answer, whatever is kept here.
 */
const opened = new WeakMap<CryptoKey, Map<string, string>>();
const OPENED_LIMIT = 256;

/** The token, or undefined when it cannot be opened here (another key, or another slot: another tenant, name or address). */
export async function openToken(
  key: TokenKey,
  tenant: string,
  upstream: TokenUpstream,
  sealed: SealedToken,
): Promise<string | undefined> {
  if (sealed.key_id !== key.id) return undefined;
  let byKey = opened.get(key.key);
  if (!byKey) opened.set(key.key, (byKey = new Map()));
  const entry = [tenant, upstream.name, upstreamAddress(upstream), sealed.iv, sealed.ciphertext].join("\u0000");
  const known = byKey.get(entry);
  if (known !== undefined) return known;
  const token = await decryptToken(key, tenant, upstream, sealed);
  if (token !== undefined) {
    if (byKey.size >= OPENED_LIMIT) byKey.delete(byKey.keys().next().value!);
    byKey.set(entry, token);
  }
  return token;
}

async function decryptToken(
  key: TokenKey,
  tenant: string,
  upstream: TokenUpstream,
  sealed: SealedToken,
): Promise<string | undefined> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: unbase64(sealed.iv), additionalData: slot(tenant, upstream) },
      key.key,
      unbase64(sealed.ciphertext),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return undefined;
  }
}

/** What a tenant may store: a bearer token (RFC 6750 token68 characters), bounded. */
export function checkToken(token: unknown): string | undefined {
  if (typeof token !== "string" || token.length === 0 || token.length > 4096)
    return "token must be a string of 1 to 4096 characters";
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token))
    return "token must be a bearer token (letters, digits and -._~+/ , then any =)";
  return undefined;
}

function base64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function unbase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
