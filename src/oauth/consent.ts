/**
 * `GET/POST /console/authorize`: the authorization endpoint's person-facing part (docs/oauth.md#consent),
 * a page of the console rendered here (src/oauth/consent-shell.ts).
 * The library checks the client's request (client, exact redirect URI, PKCE S256, resource),
 * fetching the metadata document of a client whose client_id is its URL (docs/oauth.md#client-id-metadata-documents);
 * then a person signs in, with an API key of their tenant or through the identity provider
 * (src/oauth/idp-sign-in.ts), and chooses what the client may use: channels the signer allows,
 * or one bundle. The grant records the tenant, the agent, the key's id (or the provider), the
 * choice and the resource; its tokens never reach further than the signer (src/oauth/grant.ts).
 * Between the two forms the signer is a one-time ticket (src/oauth/consent-signer.ts).
 */
import {
  AuthorizationError,
  CimdFetchError,
  type AuthRequest,
  type OAuthHelpers,
} from "@cloudflare/workers-oauth-provider";
import { readBody } from "../codec/request-body.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { resourceOf } from "../mcp/resource-server.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { bundleNames } from "../registry/bundles.ts";
import {
  choicePage,
  errorPage,
  signInPage,
  type ChoiceFacts,
  type ClientFacts,
  type ConsentView,
} from "./consent-page.ts";
import { consentResponse } from "./consent-shell.ts";
import { dropTicket, putTicket, signerOfKey, signerOfTicket, type Signer } from "./consent-signer.ts";
import { grantUserOf } from "./endpoints.ts";
import { choiceProblem, type GrantChoice, type GrantMetadata, type GrantProps } from "./grant.ts";
import { signInWithKey, type GrantKey } from "./grant-key.ts";
import { startIdpSignIn } from "./idp-sign-in.ts";
import { oauthApi } from "./provider.ts";

/** The forms hold a key, a ticket and a few names: anything longer is no form of this page. */
const MAX_FORM_BYTES = 16 * 1024;

export async function serveConsent(
  request: Request,
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "POST")
    return new Response(null, { status: 405, headers: { Allow: "GET, POST" } });
  const api = oauthApi(env, request.url);
  const html = (view: ConsentView, status?: number) => consentResponse(env, view, status);
  let auth: AuthRequest;
  let facts: ClientFacts;
  try {
    ({ auth, facts } = await clientRequest(api, request));
  } catch (err) {
    const refused = await refusal(env, err);
    if (refused) return refused;
    throw err;
  }
  const idp = loadConfig(env).idp;
  const idpName = idp?.name;
  if (request.method === "GET") return html(signInPage(facts, undefined, idpName));
  // A form posted from another site is refused: nobody signs a person in, or consents for them, from elsewhere.
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(request.url).origin)
    return html(errorPage("This form may be sent from this page only."), 403);

  const form = await readForm(request);
  if (!form) return html(signInPage(facts, "The form could not be read; sign in again.", idpName), 400);

  if (form.get("step") === "idp") {
    if (!idp) return html(signInPage(facts, "Signing in through an identity provider is not set up here."), 400);
    return startIdpSignIn(request, env, idp, auth.clientId);
  }

  if (form.get("step") === "sign_in") {
    let key: GrantKey;
    try {
      key = await signInWithKey(env, request, form.get("api_key") ?? "");
    } catch (err) {
      if (!(err instanceof RuntimeError)) throw err;
      const tooMany = err.code === "rate_limited";
      return html(
        signInPage(
          facts,
          tooMany ? "Too many failed sign-ins; wait a few seconds." : "That API key is not valid.",
          idpName,
        ),
        tooMany ? 429 : 401,
      );
    }
    const signer = signerOfKey(key);
    const ticket = await putTicket(env, signer, auth.clientId);
    return html(choicePage(facts, await choiceFacts(env, waitUntil, signer, ticket)));
  }

  const ticket = form.get("ticket") ?? "";
  const signer = await signerOfTicket(env, request, ticket, auth.clientId);
  if (!signer)
    return html(
      signInPage(facts, "The sign-in has expired, or it no longer gives access; sign in again.", idpName),
      401,
    );

  if (form.get("decision") !== "allow") {
    await dropTicket(env, ticket);
    return errorRedirect(auth.redirectUri, "access_denied", "the person denied the request", auth.state, auth.issuer);
  }
  const choice = parseChoice(form);
  const snapshot = await getSnapshot(env, waitUntil);
  const problem = choice
    ? choiceProblem(choice, signer.caller, bundleNames(snapshot, signer.caller.tenant))
    : "choose what the client may use";
  if (problem || !choice)
    return html(choicePage(facts, await choiceFacts(env, waitUntil, signer, ticket), problem), 400);
  await dropTicket(env, ticket);

  // The library held the client's `resource` to exactly this (src/oauth/provider.ts): the grant's audience.
  const resource = resourceOf(env, request.url);
  const props: GrantProps = {
    tenant: signer.caller.tenant,
    agent: signer.caller.agent,
    key_id: signer.keyId,
    ...signer.proof,
    ...choice,
    resource,
  };
  const metadata: GrantMetadata = {
    agent: signer.caller.agent,
    key_id: signer.keyId,
    // The library names a client that gave no name by its client_id: that is no name.
    client_name: facts.name === auth.clientId ? null : facts.name,
    ...choice,
    resource,
  };
  let redirectTo: string;
  try {
    ({ redirectTo } = await api.completeAuthorization({
      request: auth,
      userId: grantUserOf(signer.caller.tenant),
      metadata,
      scope: auth.scope,
      props,
      // One user id is the whole tenant: another agent's grant to the same client must stay.
      revokeExistingGrants: false,
    }));
  } catch (err) {
    // The client's metadata document is read again here, and may have gone meanwhile: no grant then.
    const refused = await refusal(env, err);
    if (refused) return refused;
    throw err;
  }
  return new Response(null, { status: 302, headers: { Location: redirectTo, "Cache-Control": "no-store" } });
}

/** The client's authorization request in `request`'s query, checked by the library, and what the page says of the client. */
export async function clientRequest(
  api: OAuthHelpers,
  request: Request,
): Promise<{ auth: AuthRequest; facts: ClientFacts }> {
  const auth = await api.parseAuthRequest(request);
  const described = await api.describeConsent(auth);
  return {
    auth,
    facts: {
      name: described.clientName,
      domain: described.clientDomain,
      redirectHost: described.redirectHost,
      redirectIsLoopback: described.redirectIsLoopback,
    },
  };
}

/**
 * The answer to a request the library refused. Only a checked redirect URI may receive the error;
 * anything else is told here (RFC 6749 §4.1.2.1): an unknown client, a redirect URI the client
 * did not register, and a metadata document that could not be fetched or is not valid (the
 * fetch happens now, so its reason is the client developer's to read; the document is public).
 * `redirect: false` tells every error on the page, as the identity provider's callback does.
 */
export async function refusal(env: Env, err: unknown, redirect = true): Promise<Response | undefined> {
  if (err instanceof CimdFetchError)
    return consentResponse(
      env,
      errorPage(`The client's metadata document (${err.metadataUrl}) could not be used: ${err.detail}`),
      400,
    );
  if (!(err instanceof AuthorizationError)) return undefined;
  if (!err.redirectTo || !redirect) return consentResponse(env, errorPage(err.description), 400);
  return new Response(null, { status: 302, headers: { Location: err.redirectTo, "Cache-Control": "no-store" } });
}

function parseChoice(form: URLSearchParams): GrantChoice | undefined {
  switch (form.get("grant")) {
    case "all":
      return { channels: ["*"] };
    case "channels":
      return { channels: [...new Set(form.getAll("channel"))].sort() };
    case "bundle": {
      const bundle = form.get("bundle");
      return bundle ? { bundle } : undefined;
    }
    default:
      return undefined;
  }
}

/** What the choice page offers `signer`: its channels, the providers behind `*`, the bundles it may be limited to. */
export async function choiceFacts(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  signer: Signer,
  ticket: string,
): Promise<ChoiceFacts> {
  const snapshot = await getSnapshot(env, waitUntil);
  const { caller } = signer;
  const bundles = bundleNames(snapshot, caller.tenant).filter((b) => !caller.bundles || caller.bundles.includes(b));
  const who = "idp" in signer.proof ? signer.proof.idp.display : undefined;
  return {
    tenant: caller.tenant,
    agent: caller.agent,
    ...(signer.via ? { via: signer.via } : {}),
    ...(who ? { who } : {}),
    channels: caller.channels,
    providers: snapshot.providers.map((p) => p.name),
    bundles: bundles.sort(),
    ticket,
  };
}

async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  if (!(request.headers.get("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return undefined;
  try {
    return new URLSearchParams(new TextDecoder().decode(await readBody(request, MAX_FORM_BYTES)));
  } catch (err) {
    if (err instanceof RuntimeError) return undefined;
    throw err;
  }
}

function errorRedirect(
  redirectUri: string,
  code: string,
  description: string,
  state?: string,
  issuer?: string,
): Response {
  const url = new URL(redirectUri);
  url.searchParams.set("error", code);
  url.searchParams.set("error_description", description);
  if (state) url.searchParams.set("state", state);
  if (issuer) url.searchParams.set("iss", issuer);
  return new Response(null, { status: 302, headers: { Location: url.toString(), "Cache-Control": "no-store" } });
}
