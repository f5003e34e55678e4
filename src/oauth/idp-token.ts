/**
 * The code the identity provider sent back, exchanged at its token endpoint for an ID token
 * (OpenID Connect Core §3.1.3, RFC 6749 §4.1.3): with the PKCE verifier, the fixed callback URI,
 * and the client secret when there is one, sent as HTTP Basic (`client_secret_basic`, which
 * every provider must take: RFC 6749 §2.3.1); a public client sends its client id alone. The
 * request is bounded in time and the answer in size, and never follows a redirect.
 */
import type { IdpConfig } from "./idp-config.ts";
import { SignInRefused } from "./idp-identity.ts";

const TIMEOUT_MS = 10_000;
/** An ID token and an access token, with room to spare: a bigger answer is no token response. */
const MAX_ANSWER_CHARS = 64 * 1024;

/** The ID token for `code`; SignInRefused when the provider refuses, cannot be reached or answers without one. */
export async function exchangeCode(
  idp: IdpConfig,
  code: string,
  verifier: string,
  redirectUri: string,
): Promise<string> {
  const body = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  if (idp.clientSecret !== undefined)
    headers.authorization = `Basic ${btoa(`${formEncoded(idp.clientId)}:${formEncoded(idp.clientSecret)}`)}`;
  else body.set("client_id", idp.clientId);

  let text: string;
  let status: number;
  try {
    const res = await fetch(idp.tokenUrl, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    throw new SignInRefused(`its token endpoint could not be reached (${err instanceof Error ? err.name : "error"})`);
  }
  const answer = text.length <= MAX_ANSWER_CHARS ? parsed(text) : undefined;
  if (status < 200 || status > 299) {
    const error = typeof answer?.error === "string" ? answer.error.slice(0, 100) : `HTTP ${status}`;
    const described =
      typeof answer?.error_description === "string" ? `: ${answer.error_description.slice(0, 300)}` : "";
    throw new SignInRefused(`its token endpoint refused the code (${error}${described})`);
  }
  if (typeof answer?.id_token !== "string" || answer.id_token.length > 16 * 1024)
    throw new SignInRefused("its token endpoint answered without an ID token (is openid among OAUTH_IDP_SCOPES?)");
  return answer.id_token;
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded before they are joined for Basic. */
function formEncoded(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
