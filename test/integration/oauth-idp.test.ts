/**
 * Signing in on the consent page through the operator's identity provider, in workerd
 * (docs/oauth.md#signing-in-through-the-identity-provider), against a stand-in OpenID Connect
 * provider (test/fixtures/idp-site.js) that checks the runtime's side as a provider would (its
 * client secret, redirect URI, PKCE S256, state, nonce) and signs ID tokens with its own key.
 * The whole flow: an MCP client registers, the person signs in at the provider, comes back,
 * chooses a channel, the client exchanges the code with PKCE and calls a tool on /mcp as the
 * provider's subject in the tenant its claim names; the tenant's admin sees and revokes the
 * grant. And what must not work: another browser's state, a wrong nonce, an ID token of another
 * issuer or audience, an expired sign-in, no tenant claim, the provider's refusal: each a 400
 * page, never a redirect to the client, with the way back to the client's request kept.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { escapeHtml } from "../../src/oauth/consent-page.ts";
import { pendingKey } from "../../src/oauth/idp-pending.ts";
import { mintKey, send } from "./worker-http.ts";
import { evaluate, exchange, fetchWith, form, mcp, REDIRECT, register, authorizePath, unique } from "./oauth-client.ts";
import { atProvider, callback, IDP_NAME, idpEnv, personOf, startSignIn, type Person } from "./idp-browser.ts";

const ticketOf = (page: string) => /name="ticket" value="([0-9a-f]{32})"/.exec(page)?.[1];

/** A refused callback: a 400 page saying `words`, no redirect, and (when `path` is given) the way back to the client's request. */
function expectRefused(res: { status: number; location: string | null; text: string }, words: string, path?: string) {
  expect(res.status).toBe(400);
  expect(res.location).toBeNull();
  expect(res.text).toContain(escapeHtml(words));
  if (path) expect(res.text).toContain(`<a href="${escapeHtml(path)}">`);
  expect(ticketOf(res.text)).toBeUndefined();
}

/** Signs `person` in and comes back: the callback's answer, and the sign-in it finished. */
async function signIn(person: Person) {
  const started = await startSignIn();
  const back = await atProvider(started.to, person);
  return { started, back, res: await callback(back, started.cookie) };
}

describe("signing in on the consent page through the identity provider", () => {
  it("signs a person in, grants a channel, and the client's token calls a tool as the provider's subject", async () => {
    const org = unique("idp-org");
    const sub = unique("person");
    const { started, back, res } = await signIn(personOf(org, sub));
    expect(res.status).toBe(200);
    expect(res.text).toContain(`Signed in with ${IDP_NAME} as <strong>${sub}@example.com</strong>`);
    expect(res.text).toContain(`agent <code>${sub}</code> of tenant <code>${org}</code>`);
    const ticket = ticketOf(res.text)!;
    expect(ticket).toBeDefined();
    // The way back is used once.
    expectRefused(await callback(back, started.cookie), "was already used");

    const allowed = await fetchWith(
      idpEnv,
      started.path,
      form({ step: "consent", ticket, decision: "allow", grant: "channels", channel: "std" }),
    );
    expect(allowed.status).toBe(302);
    const to = new URL(allowed.headers.get("location")!);
    expect(`${to.origin}${to.pathname}`).toBe(REDIRECT);
    expect(to.searchParams.get("state")).toBe("st-idp");
    const signed = { clientId: started.clientId, verifier: started.verifier, code: to.searchParams.get("code")! };
    const issued = await exchange(signed, signed.verifier, idpEnv);
    expect(issued.status).toBe(200);
    const access = issued.body.access_token as string;

    const called = await evaluate(access, idpEnv);
    expect(called.status).toBe(200);
    expect(called.body.result.structuredContent).toEqual({ value: 42 });
    // Attributed to the subject in its tenant: that agent's own key reads it, another agent's does not.
    const id = called.body.result._meta["io.tool-runtime/execution_id"];
    const own = await mintKey(env, org, { agent: sub });
    expect((await send(env, "GET", `/v1/executions/${id}`, own)).status).toBe(200);
    const other = await mintKey(env, org, { agent: "someone-else" });
    expect((await send(env, "GET", `/v1/executions/${id}`, other)).status).toBe(404);

    const admin = await mintKey(env, org, { agent: "ops", role: "tenant_admin" });
    const grants = await send(env, "GET", "/v1/oauth/grants", admin);
    expect(grants.json.grants).toEqual([
      expect.objectContaining({
        client_id: started.clientId,
        agent: sub,
        key_id: "idp:idp.example",
        channels: ["std"],
      }),
    ]);
    const revoked = await send(env, "DELETE", `/v1/oauth/grants/${grants.json.grants[0].grant_id}`, admin);
    expect(revoked.status).toBe(200);
    expect((await evaluate(access, idpEnv)).status).toBe(401);
  });

  it("maps the grant's claims again on each use: narrower defaults narrow it, turning the sign-in off ends it", async () => {
    const { started, res } = await signIn(personOf(unique("idp-off"), "ada"));
    const allowed = await fetchWith(
      idpEnv,
      started.path,
      form({ step: "consent", ticket: ticketOf(res.text)!, decision: "allow", grant: "all" }),
    );
    const code = new URL(allowed.headers.get("location")!).searchParams.get("code")!;
    const access = (await exchange({ ...started, code }, started.verifier, idpEnv)).body.access_token as string;
    expect((await evaluate(access, idpEnv)).status).toBe(200);
    const names = async (e: Env) =>
      (await mcp(access, "tools/list", {}, e)).body.result.tools.map((t: { name: string }) => t.name);
    expect(await names(idpEnv)).toContain("math.evaluate");
    const narrower = Object.assign({}, idpEnv, { JWT_DEFAULT_CHANNELS: "lab" });
    expect(await names(narrower)).not.toContain("math.evaluate");
    expect(await names(narrower)).toContain("lab.echo");
    const off = Object.assign({}, idpEnv, {
      OAUTH_IDP_CLIENT_ID: "",
      OAUTH_IDP_CLIENT_SECRET: "",
      OAUTH_IDP_AUTHORIZATION_URL: "",
      OAUTH_IDP_TOKEN_URL: "",
      OAUTH_IDP_NAME: "",
    });
    expect((await evaluate(access, off)).status).toBe(401);
  });

  it("refuses a callback with another browser's state, and leaves the sign-in to its own browser", async () => {
    const mine = await startSignIn();
    const back = await atProvider(mine.to, personOf(unique("idp-state"), "ada"));
    const theirs = await startSignIn();
    expectRefused(await callback(back, theirs.cookie), "was started in another browser");
    expectRefused(await callback(back, undefined), "was started in another browser");
    const unknown = new URL(back);
    unknown.searchParams.set("state", "A".repeat(43));
    expectRefused(await callback(unknown, mine.cookie), "is unknown, has expired or was already used");
    expect((await callback(back, mine.cookie)).status).toBe(200);
  });

  it("counts callbacks whose state finds nothing against the address, and refuses it once over, before the read", async () => {
    // An address of its own: a loopback one other than this machine's (a local stack refuses
    // others, and does not count its own clients' 127.0.0.1).
    const from = {
      "cf-connecting-ip": `127.77.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`,
    };
    const bogus = `/oauth/idp/callback?state=${"B".repeat(43)}&code=c`;
    // The limiter counts in fixed windows of its period (10 s, from the epoch, in miniflare as on
    // the platform): begin in the first half of one, so that the flood is not split over two.
    const into = Date.now() % 10_000;
    if (into > 5_000) await new Promise((r) => setTimeout(r, 10_050 - into));
    const statuses: number[] = [];
    for (let i = 0; i < 60 && !statuses.includes(429); i++)
      statuses.push((await fetchWith(idpEnv, bogus, { headers: from })).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.slice(0, -1).every((s) => s === 400)).toBe(true);
    // Now even this address's real sign-in waits: it is refused before its state is read, and kept.
    const mine = await startSignIn();
    const back = await atProvider(mine.to, personOf(unique("idp-flood"), "ada"));
    const refused = await fetchWith(idpEnv, `${back.pathname}${back.search}`, {
      headers: { ...from, cookie: mine.cookie },
    });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("Too many failed sign-ins");
    // Another address is not held back, and the sign-in was not used up.
    expect((await callback(back, mine.cookie)).status).toBe(200);
  });

  it("keeps one browser's sign-ins apart in two tabs", async () => {
    const first = await startSignIn();
    const second = await startSignIn(first.cookie);
    expect(second.cookie).toBe(first.cookie);
    const firstBack = await atProvider(first.to, personOf(unique("idp-tabs"), "ada"));
    expect(
      (await callback(await atProvider(second.to, personOf(unique("idp-tabs"), "bo")), second.cookie)).status,
    ).toBe(200);
    expect((await callback(firstBack, first.cookie)).status).toBe(200);
  });

  it("refuses an ID token whose nonce is not this sign-in's", async () => {
    const { started, res } = await signIn({ ...personOf(unique("idp-nonce"), "ada"), override: { nonce: "replayed" } });
    expectRefused(res, "the ID token's nonce is not the one this sign-in sent", started.path);
  });

  it("refuses an ID token from another issuer, or for another audience", async () => {
    const other = await signIn({ ...personOf(unique("idp-iss"), "ada"), override: { iss: "https://other.example" } });
    expectRefused(other.res, 'unexpected "iss" claim value', other.started.path);
    const aud = await signIn({ ...personOf(unique("idp-aud"), "ada"), override: { aud: "another-client" } });
    expectRefused(aud.res, 'unexpected "aud" claim value', aud.started.path);
    // An answer that names another issuer (RFC 9207) goes no further.
    const started = await startSignIn();
    const back = await atProvider(started.to, personOf(unique("idp-mixup"), "ada"));
    back.searchParams.set("iss", "https://other.example");
    expectRefused(await callback(back, started.cookie), "names another issuer", started.path);
  });

  it("refuses an ID token without the tenant claim", async () => {
    const { started, res } = await signIn({ claims: { sub: "ada", email: "ada@example.com" } });
    expectRefused(res, "the ID token has no org claim (JWT_TENANT_CLAIM)", started.path);
  });

  it("tells the provider's refusal on the page, not to the client", async () => {
    const { started, res } = await signIn({ deny: true });
    expectRefused(res, `${IDP_NAME} did not sign you in (access_denied: the person declined)`, started.path);
  });

  it("refuses a sign-in that took longer than ten minutes, keeping the way back", async () => {
    const started = await startSignIn();
    const back = await atProvider(started.to, personOf(unique("idp-late"), "ada"));
    const key = pendingKey(started.state);
    const entry = await env.OAUTH_KV.get<Record<string, unknown>>(key, "json");
    expect(entry).not.toBeNull();
    await env.OAUTH_KV.put(key, JSON.stringify({ ...entry, expires_at: Date.now() - 1 }));
    const res = await callback(back, started.cookie);
    expectRefused(res, "took longer than ten minutes and has expired", started.path);
    // The way back is the consent page of the same request, with both ways to sign in.
    const again = await fetchWith(idpEnv, started.path);
    expect(again.status).toBe(200);
    expect(await again.text()).toContain(`Sign in with ${IDP_NAME}`);
  });

  it("offers no provider and has no callback when it is not configured", async () => {
    const path = await authorizePath(await register(), { state: "s" });
    const page = await fetchWith(env, path);
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain("Sign in with");
    expect((await fetchWith(env, path, form({ step: "idp" }))).status).toBe(400);
    const res = await fetchWith(env, `/oauth/idp/callback?state=${"A".repeat(43)}&code=c`);
    expect(res.status).toBe(404);
    expect((await fetchWith(idpEnv, `/oauth/idp/callback?state=${"A".repeat(43)}&code=c`)).status).toBe(400);
  });

  it("leaves API-key sign-in working beside the provider's", async () => {
    const key = await mintKey(env, unique("idp-key"));
    const path = await authorizePath(await register(idpEnv), { state: "s" });
    const signedIn = await fetchWith(idpEnv, path, form({ step: "sign_in", api_key: key }));
    expect(signedIn.status).toBe(200);
    expect(ticketOf(await signedIn.text())).toBeDefined();
    expect((await mcp(key, "tools/list", {}, idpEnv)).status).toBe(200);
  });
});
