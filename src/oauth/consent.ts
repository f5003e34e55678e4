/**
 * `GET/POST /oauth/authorize`: the authorization endpoint's person-facing part (docs/oauth.md#consent).
 * The library checks the client's request (client, exact redirect URI, PKCE S256, resource),
 * fetching the metadata document of a client whose client_id is its URL (docs/oauth.md#client-id-metadata-documents);
 * then a person signs in with an API key of their tenant and chooses what the client may use:
 * channels the key allows, or one bundle. The grant records the tenant, the key's agent and id,
 * the choice and the resource; its tokens never reach further than the key (src/oauth/grant.ts).
 *
 * Between the two forms the signed-in key is a one-time ticket in OAUTH_KV (ten minutes, bound
 * to the client), so the key itself is typed once and never written into a page.
 */
import { AuthorizationError, CimdFetchError, type AuthRequest } from "@cloudflare/workers-oauth-provider";
import { readBody } from "../codec/request-body.ts";
import { RuntimeError } from "../errors.ts";
import { resourceOf } from "../mcp/resource-server.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { choicePage, errorPage, signInPage, type ClientFacts } from "./consent-page.ts";
import { grantUserOf } from "./endpoints.ts";
import { choiceProblem, type GrantChoice, type GrantMetadata, type GrantProps } from "./grant.ts";
import { keyByHash, signInWithKey, type GrantKey } from "./grant-key.ts";
import { oauthApi } from "./provider.ts";

const TICKET_TTL_S = 600;
/** The forms hold a key, a ticket and a few names: anything longer is no form of this page. */
const MAX_FORM_BYTES = 16 * 1024;

interface Ticket {
  key_hash: string;
  client_id: string;
}

export async function serveConsent(
  request: Request,
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "POST")
    return new Response(null, { status: 405, headers: { Allow: "GET, POST" } });
  const api = oauthApi(env, request.url);
  let auth: AuthRequest;
  let facts: ClientFacts;
  try {
    auth = await api.parseAuthRequest(request);
    const described = await api.describeConsent(auth);
    facts = {
      name: described.clientName,
      domain: described.clientDomain,
      redirectHost: described.redirectHost,
      redirectIsLoopback: described.redirectIsLoopback,
    };
  } catch (err) {
    const refused = refusal(err);
    if (refused) return refused;
    throw err;
  }
  if (request.method === "GET") return html(signInPage(facts));
  // A form posted from another site is refused: nobody signs a person in, or consents for them, from elsewhere.
  const origin = request.headers.get("origin");
  if (origin !== null && origin !== new URL(request.url).origin)
    return html(errorPage("This form may be sent from this page only."), 403);

  const form = await readForm(request);
  if (!form) return html(signInPage(facts, "The form could not be read; sign in again."), 400);

  if (form.get("step") === "sign_in") {
    let key: GrantKey;
    try {
      key = await signInWithKey(env, request, form.get("api_key") ?? "");
    } catch (err) {
      if (!(err instanceof RuntimeError)) throw err;
      const tooMany = err.code === "rate_limited";
      return html(
        signInPage(facts, tooMany ? "Too many failed sign-ins; wait a few seconds." : "That API key is not valid."),
        tooMany ? 429 : 401,
      );
    }
    const ticket = randomId();
    const stored: Ticket = { key_hash: key.keyHash, client_id: auth.clientId };
    await env.OAUTH_KV.put(`consent:${ticket}`, JSON.stringify(stored), { expirationTtl: TICKET_TTL_S });
    return html(choicePage(facts, await choiceFacts(env, waitUntil, key, ticket)));
  }

  const ticket = form.get("ticket") ?? "";
  const stored = /^[0-9a-f]{32}$/.test(ticket) ? await env.OAUTH_KV.get<Ticket>(`consent:${ticket}`, "json") : null;
  const key = stored && stored.client_id === auth.clientId ? await keyByHash(env, request, stored.key_hash) : undefined;
  if (!key) return html(signInPage(facts, "The sign-in has expired, or its key no longer works; sign in again."), 401);

  if (form.get("decision") !== "allow") {
    await env.OAUTH_KV.delete(`consent:${ticket}`);
    return errorRedirect(auth.redirectUri, "access_denied", "the person denied the request", auth.state, auth.issuer);
  }
  const choice = parseChoice(form);
  const snapshot = await getSnapshot(env, waitUntil);
  const problem = choice
    ? choiceProblem(choice, key.caller, Object.keys(snapshot.bundles ?? {}))
    : "choose what the client may use";
  if (problem || !choice) return html(choicePage(facts, await choiceFacts(env, waitUntil, key, ticket), problem), 400);
  await env.OAUTH_KV.delete(`consent:${ticket}`);

  // The library held the client's `resource` to exactly this (src/oauth/provider.ts): the grant's audience.
  const resource = resourceOf(env, request.url);
  const props: GrantProps = {
    tenant: key.caller.tenant,
    agent: key.caller.agent,
    key_id: key.keyId,
    key_hash: key.keyHash,
    ...choice,
    resource,
  };
  const metadata: GrantMetadata = {
    agent: key.caller.agent,
    key_id: key.keyId,
    // The library names a client that gave no name by its client_id: that is no name.
    client_name: facts.name === auth.clientId ? null : facts.name,
    ...choice,
    resource,
  };
  let redirectTo: string;
  try {
    ({ redirectTo } = await api.completeAuthorization({
      request: auth,
      userId: grantUserOf(key.caller.tenant),
      metadata,
      scope: auth.scope,
      props,
      // One user id is the whole tenant: another agent's grant to the same client must stay.
      revokeExistingGrants: false,
    }));
  } catch (err) {
    // The client's metadata document is read again here, and may have gone meanwhile: no grant then.
    const refused = refusal(err);
    if (refused) return refused;
    throw err;
  }
  return new Response(null, { status: 302, headers: { Location: redirectTo, "Cache-Control": "no-store" } });
}

/**
 * The answer to a request the library refused. Only a checked redirect URI may receive the error;
 * anything else is told here (RFC 6749 §4.1.2.1): an unknown client, a redirect URI the client
 * did not register, and a metadata document that could not be fetched or is not valid (the
 * fetch happens now, so its reason is the client developer's to read; the document is public).
 */
function refusal(err: unknown): Response | undefined {
  if (err instanceof CimdFetchError)
    return html(errorPage(`The client's metadata document (${err.metadataUrl}) could not be used: ${err.detail}`), 400);
  if (!(err instanceof AuthorizationError)) return undefined;
  if (!err.redirectTo) return html(errorPage(err.description), 400);
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

async function choiceFacts(env: Env, waitUntil: (p: Promise<unknown>) => void, key: GrantKey, ticket: string) {
  const snapshot = await getSnapshot(env, waitUntil);
  const bundles = Object.keys(snapshot.bundles ?? {}).filter(
    (b) => !key.caller.bundles || key.caller.bundles.includes(b),
  );
  return {
    tenant: key.caller.tenant,
    agent: key.caller.agent,
    channels: key.caller.channels,
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

function html(body: string, status = 200): Response {
  return new Response(body, {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      // Another site may not frame the page (clickjacking) or run script in it.
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      "X-Frame-Options": "DENY",
      // Not no-referrer: under it a browser sends the form's Origin as "null", which the
      // Origin checks (here and src/auth/local-only.ts) must refuse. The page's URL (the
      // client's request) still never leaves this origin in a Referer.
      "Referrer-Policy": "same-origin",
    },
  });
}

function randomId(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
