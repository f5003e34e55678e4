/**
 * `GET /oauth/idp/callback`: where the identity provider sends the browser back
 * (docs/oauth.md#signing-in-through-the-identity-provider). A browser route, not an API: it
 * answers HTML, and only while OAUTH_IDP_CLIENT_ID is set (otherwise 404, src/app.ts).
 *
 * The `state` finds the pending sign-in, which must have begun in this browser (its cookie) and
 * within ten minutes; it is used once. The code is exchanged with the PKCE verifier, the ID
 * token verified (nonce included) and mapped as a bearer JWT is; then the page shows who signed
 * in and the same choice of channels or a bundle as after an API key, its form posting to the
 * consent page of the client's request. A state that finds no sign-in of this browser counts
 * as a failed credential against the address, as a wrong key on the consent page does (429
 * once over). Whatever goes wrong is a 400 page here, never a
 * redirect to the client (nothing vouches for what came back), and, when the client's request
 * is known, it links to the consent page of that request to start again: nothing is lost.
 */
import type { AuthRequest } from "@cloudflare/workers-oauth-provider";
import { countFailure, refuseIfBlocked } from "../auth/auth-limiter.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { choicePage, errorPage, type ClientFacts } from "./consent-page.ts";
import { consentResponse } from "./consent-shell.ts";
import { choiceFacts, clientRequest, refusal } from "./consent.ts";
import { putTicket, signerOfIdentity } from "./consent-signer.ts";
import { AUTHORIZE_PATH } from "./endpoints.ts";
import { SignInRefused, verifyIdToken, type IdpIdentity } from "./idp-identity.ts";
import { dropPending, findPending, fromSameBrowser } from "./idp-pending.ts";
import { callbackUrl } from "./idp-sign-in.ts";
import { exchangeCode } from "./idp-token.ts";
import { oauthApi } from "./provider.ts";

export async function serveIdpCallback(
  request: Request,
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<Response> {
  if (request.method !== "GET") return new Response(null, { status: 405, headers: { Allow: "GET" } });
  const { idp, jwt } = loadConfig(env);
  const refused = (message: string, startAgain?: string) => consentResponse(env, errorPage(message, startAgain), 400);
  if (!idp || !jwt) return new Response(null, { status: 404 });
  const url = new URL(request.url);
  const state = url.searchParams.get("state") ?? "";
  // A state that finds nothing, or another browser's, counts as a failed credential against the
  // address (src/auth/auth-limiter.ts); an address over the limit is refused before the read.
  const tooMany = () =>
    consentResponse(
      env,
      errorPage("Too many failed sign-ins from this address; wait a few seconds and start again."),
      429,
    );
  const failed = async (message: string) =>
    (await countFailure(env, request, new RuntimeError("unauthenticated", message))).code === "rate_limited"
      ? tooMany()
      : refused(message);
  try {
    refuseIfBlocked(request);
  } catch {
    return tooMany();
  }

  const pending = await findPending(env, state);
  if (!pending)
    return failed(
      `This sign-in with ${idp.name} is unknown, has expired or was already used. Go back to the app and start again.`,
    );
  // Another browser's state (a link someone else made) is refused and left for its own browser.
  if (!(await fromSameBrowser(request, pending)))
    return failed(
      `This sign-in with ${idp.name} was started in another browser: its state does not match this browser's. Start again from the app in this browser.`,
    );
  await dropPending(env, state);
  const again = `${AUTHORIZE_PATH}?${pending.query}`;
  if (pending.expires_at <= Date.now())
    return refused(`This sign-in with ${idp.name} took longer than ten minutes and has expired.`, again);

  // RFC 9207: a provider that names itself in its answer must name the issuer it was asked as.
  const iss = url.searchParams.get("iss");
  if (iss !== null && iss !== idp.issuer)
    return refused(`The answer to this sign-in names another issuer than ${idp.name}.`, again);
  const error = url.searchParams.get("error");
  if (error !== null) {
    const described = url.searchParams.get("error_description");
    return refused(
      `${idp.name} did not sign you in (${error.slice(0, 100)}${described ? `: ${described.slice(0, 300)}` : ""}).`,
      again,
    );
  }
  const code = url.searchParams.get("code");
  if (!code || code.length > 4096) return refused(`${idp.name} sent no code back.`, again);

  let identity: IdpIdentity;
  try {
    const idToken = await exchangeCode(idp, code, pending.verifier, callbackUrl(request.url));
    identity = await verifyIdToken(idToken, jwt, idp, pending.nonce);
  } catch (err) {
    if (err instanceof SignInRefused) return refused(`The sign-in with ${idp.name} failed: ${err.message}.`, again);
    throw err;
  }
  const signer = signerOfIdentity(env, identity);
  if (!signer) return refused(`The sign-in with ${idp.name} gives no identity in this runtime.`, again);

  // The client's request, checked again as the consent page checks it: the client (or its
  // metadata document) may be gone meanwhile. Any refusal is told here, not redirected.
  let auth: AuthRequest;
  let facts: ClientFacts;
  try {
    ({ auth, facts } = await clientRequest(oauthApi(env, request.url), new Request(new URL(again, request.url))));
  } catch (err) {
    const refusedRequest = await refusal(env, err, false);
    if (refusedRequest) return refusedRequest;
    throw err;
  }
  if (auth.clientId !== pending.client_id) return refused("The app's request changed during the sign-in.", again);
  const ticket = await putTicket(env, signer, auth.clientId);
  return consentResponse(env, choicePage(facts, await choiceFacts(env, waitUntil, signer, ticket), undefined, again));
}
