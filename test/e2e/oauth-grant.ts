/**
 * A real OAuth grant over plain HTTP against the running stack, as an MCP client makes one
 * (docs/oauth.md#how-a-client-signs-in): dynamic registration, the consent page's two forms
 * (sign in with an API key, then allow what is chosen), and the code exchanged with its PKCE
 * verifier for an access token bound to the runtime's /mcp.
 */
import { createHash, randomBytes } from "node:crypto";
import { expect } from "vitest";
import { baseUrl } from "./http.ts";
import { MCP_URL } from "./mcp.ts";

/** Where the client says the browser returns: never fetched, the 302's Location is read instead. */
const REDIRECT = "http://127.0.0.1:9/oauth-callback";

export interface MadeGrant {
  clientId: string;
  clientName: string;
  accessToken: string;
}

const form = (fields: Record<string, string | string[]>): RequestInit => {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
  return {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
    redirect: "manual",
  };
};

/**
 * Registers a client named `clientName`, signs in on the consent page with `key`, allows `choice`
 * (the consent form's fields: `{ grant: "all" }`, `{ grant: "channels", channel: [...] }`,
 * `{ grant: "bundle", bundle }`) and exchanges the code: the grant's client and access token.
 */
export async function makeGrant(
  key: string,
  clientName: string,
  choice: Record<string, string | string[]>,
): Promise<MadeGrant> {
  const registered = await fetch(`${baseUrl}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: clientName,
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    }),
  });
  expect(registered.status).toBe(201);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;

  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const authorize = `${baseUrl}/console/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "grant-e2e",
    resource: MCP_URL,
  })}`;
  const signedIn = await fetch(authorize, form({ step: "sign_in", api_key: key }));
  const page = await signedIn.text();
  expect(signedIn.status, page).toBe(200);
  const ticket = /name="ticket" value="([0-9a-f]{32})"/.exec(page)?.[1];
  expect(ticket, "the consent page's ticket").toBeDefined();

  const allowed = await fetch(authorize, form({ step: "consent", ticket: ticket!, decision: "allow", ...choice }));
  expect(allowed.status, await allowed.text()).toBe(302);
  const back = new URL(allowed.headers.get("location")!);
  expect(back.searchParams.get("state")).toBe("grant-e2e");
  const code = back.searchParams.get("code");
  expect(code, back.toString()).toBeTruthy();

  const issued = await fetch(
    `${baseUrl}/oauth/token`,
    form({
      grant_type: "authorization_code",
      code: code!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: MCP_URL,
    }),
  );
  const tokens = (await issued.json()) as { access_token?: string };
  expect(issued.status, JSON.stringify(tokens)).toBe(200);
  return { clientId, clientName, accessToken: tokens.access_token! };
}
