/**
 * Bearer tokens for /mcp (docs/contract.md#upstreams: the runtime injects a credential per upstream). A static
 * token list stands in for an OAuth verifier; the SDK's `requireBearerAuth` does the rest
 * (the 401 with `WWW-Authenticate: Bearer error="invalid_token"`, RFC 6750 §3).
 */
import { type AuthInfo, OAuthError, OAuthErrorCode, requireBearerAuth } from "@modelcontextprotocol/server";

const encoder = new TextEncoder();

/** SHA-256 of a string, as lowercase hex. */
export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The token of an `Authorization: Bearer …` header, or null. */
export function bearerToken(request: Request | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request?.headers.get("authorization") ?? "");
  return match ? match[1] : null;
}

/** Compares two secrets in constant time (their digests have equal length whatever the input). */
async function sameSecret(a: string, b: string): Promise<boolean> {
  const [da, db] = await Promise.all([a, b].map((v) => crypto.subtle.digest("SHA-256", encoder.encode(v))));
  return crypto.subtle.timingSafeEqual(da, db);
}

/** True when `token` is one of `accepted`; every entry is compared, so timing says nothing. */
export async function isOneOf(token: string, accepted: readonly string[]): Promise<boolean> {
  const matches = await Promise.all(accepted.map((candidate) => sameSecret(token, candidate)));
  return matches.includes(true);
}

/**
 * A gate that accepts any of `tokens` and answers anything else with the SDK's 401
 * challenge. Static tokens do not expire, but the SDK requires an expiry: one hour ahead.
 */
export function tokenGate(tokens: readonly string[]): (request: Request) => Promise<AuthInfo | Response> {
  return requireBearerAuth({
    verifier: {
      async verifyAccessToken(token: string): Promise<AuthInfo> {
        if (!(await isOneOf(token, tokens))) throw new OAuthError(OAuthErrorCode.InvalidToken, "Unknown bearer token");
        return { token, clientId: "upstream-client", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
      },
    },
  });
}
