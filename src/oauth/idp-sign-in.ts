/**
 * The consent page's "Sign in with <provider>" (docs/oauth.md#signing-in-through-the-identity-provider):
 * an OpenID Connect authorization code request with PKCE S256, `state` and `nonce`, sent through
 * the browser to the operator's identity provider. The client's authorization request waits in
 * OAUTH_KV, bound to this browser (src/oauth/idp-pending.ts), and the provider sends the browser
 * back to one fixed path of this origin (src/oauth/idp-callback.ts), so no URL from a request
 * decides where a browser goes.
 */
import { errorPage } from "./consent-page.ts";
import { consentResponse } from "./consent-shell.ts";
import { IDP_CALLBACK_PATH } from "./endpoints.ts";
import type { IdpConfig } from "./idp-config.ts";
import { bindBrowser, challengeOf, putPending, randomToken } from "./idp-pending.ts";

/** A client's authorization request is a few hundred characters; a longer one is not kept. */
const MAX_QUERY_CHARS = 8 * 1024;

/** This runtime's redirect URI at the identity provider: the request's origin and the fixed callback path. */
export function callbackUrl(requestUrl: string): string {
  return new URL(IDP_CALLBACK_PATH, requestUrl).href;
}

/**
 * Sends the browser to the identity provider for the client `clientId`, whose request (checked
 * by the library) is `request`'s query. 303, so the browser follows with a GET.
 */
export async function startIdpSignIn(request: Request, env: Env, idp: IdpConfig, clientId: string): Promise<Response> {
  const query = new URL(request.url).search.slice(1);
  if (query.length > MAX_QUERY_CHARS)
    return consentResponse(env, errorPage(`The app's request is too long to sign in with ${idp.name}.`), 400);
  const browser = bindBrowser(request);
  const verifier = randomToken();
  const nonce = randomToken();
  const state = await putPending(env, { query, client_id: clientId, verifier, nonce }, browser.value);

  const to = new URL(idp.authorizationUrl);
  to.searchParams.set("response_type", "code");
  to.searchParams.set("client_id", idp.clientId);
  to.searchParams.set("redirect_uri", callbackUrl(request.url));
  to.searchParams.set("scope", idp.scopes.join(" "));
  to.searchParams.set("state", state);
  to.searchParams.set("nonce", nonce);
  to.searchParams.set("code_challenge", await challengeOf(verifier));
  to.searchParams.set("code_challenge_method", "S256");
  return new Response(null, {
    status: 303,
    headers: { Location: to.href, "Set-Cookie": browser.setCookie, "Cache-Control": "no-store" },
  });
}
