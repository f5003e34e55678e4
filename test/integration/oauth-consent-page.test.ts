/**
 * The consent page as a page of the console (docs/decisions/46-consent-in-console.md): at
 * /console/authorize, which the metadata advertises; the old /oauth/authorize sends a client on
 * with a 308 and its query; the page is the console's index.html with the page in `#app`
 * (src/oauth/consent-shell.ts): the console's own build, which the ASSETS binding serves here
 * as under wrangler dev, and a stand-in shaped as vite builds it, for what the build may hold
 * (module preloads) and for a hostile client's name; without the binding, or when it cannot be
 * read, the same page stands alone. In a browser under wrangler dev: test/e2e/mcp-oauth.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintKey } from "./worker-http.ts";
import { authorizePath, fetchWith, form, REDIRECT, register, unique } from "./oauth-client.ts";

/** The console's index.html as `npm run build:console` writes it (console/index.html through vite). */
const SHELL = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <link rel="icon" href="data:," />
    <title>Tool Runtime console</title>
    <script type="module" crossorigin src="/console/assets/index-Ab12.js"></script>
    <link rel="modulepreload" crossorigin href="/console/assets/vendor-Cd34.js">
    <link rel="stylesheet" crossorigin href="/console/assets/index-Ef56.css">
  </head>
  <body>
    <div id="app"></div>
    <noscript>The console needs JavaScript; the API itself is at /v1 (see /v1/openapi.json).</noscript>
  </body>
</html>
`;

/** An environment whose ASSETS binding answers `answer` for every read, counting them. */
function withAssets(answer: () => Response | Promise<Response>) {
  const reads: string[] = [];
  const assets = {
    fetch: async (input: RequestInfo | URL) => {
      reads.push(new URL(input instanceof Request ? input.url : input).pathname);
      return answer();
    },
  } as unknown as Fetcher;
  return { e: Object.assign({}, env, { ASSETS: assets }) as Env, reads };
}

async function registerNamed(name: string): Promise<string> {
  const res = await fetchWith(env, "/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

describe("the consent page, a page of the console", () => {
  it("is advertised at /console/authorize", async () => {
    const doc = (await (await fetchWith(env, "/.well-known/oauth-authorization-server")).json()) as any;
    expect(doc.authorization_endpoint).toBe("http://localhost/console/authorize");
  });

  it("sends a client at /oauth/authorize on with a 308 and its query, for a GET and a POST", async () => {
    const key = await mintKey(env, unique("consent-moved"));
    const path = await authorizePath(await register(), { state: "s-moved" });
    const query = path.slice(path.indexOf("?"));
    const old = `/oauth/authorize${query}`;
    const got = await fetchWith(env, old);
    expect(got.status).toBe(308);
    expect(got.headers.get("location")).toBe(`/console/authorize${query}`);
    const posted = await fetchWith(env, old, form({ step: "sign_in", api_key: key }));
    expect(posted.status).toBe(308);
    expect(posted.headers.get("location")).toBe(`/console/authorize${query}`);
    // The POST, repeated at the new address (as a browser does after a 308), signs in there.
    const there = await fetchWith(env, posted.headers.get("location")!, form({ step: "sign_in", api_key: key }));
    expect(there.status).toBe(200);
    expect(await there.text()).toMatch(/name="ticket" value="[0-9a-f]{32}"/);
  });

  it("answers no other /console/ path: those are the static assets', a file or their 404", async () => {
    for (const path of ["/console/authorize/", "/console/authorizex", "/console/x"]) {
      const res = await fetchWith(env, path);
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).toBe("");
    }
    const index = await fetchWith(env, "/console/");
    expect(index.status).toBe(200);
    expect(await index.text()).toContain('<div id="app"></div>');
    // Without assets, the Worker's own 404.
    const bare = await fetchWith(Object.assign({}, env, { ASSETS: undefined }) as unknown as Env, "/console/x");
    expect(bare.status).toBe(404);
    expect(((await bare.json()) as any).error.code).toBe("not_found");
  });

  it("renders inside the console's own build, read through the ASSETS binding", async () => {
    // The binding serves .build/assets, which `npm run build:console` writes before the tests.
    const index = await (await env.ASSETS.fetch("https://assets.invalid/console/")).text();
    const stylesheet = /<link rel="stylesheet"[^>]*>/.exec(index)?.[0];
    expect(stylesheet, index).toMatch(/href="\/console\/assets\/[^"]+\.css"/);
    const res = await fetchWith(env, await authorizePath(await register(), { state: "s" }));
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(stylesheet);
    expect(page).not.toContain("<script");
    expect(page).toMatch(/<div id="app"><header class="top">[\s\S]*Test MCP client[\s\S]*<\/main><\/div>/);
  });

  it("stands alone without the ASSETS binding: the same content, its own style, no script", async () => {
    const bare = Object.assign({}, env, { ASSETS: undefined }) as unknown as Env;
    const res = await fetchWith(bare, await authorizePath(await register(), { state: "s" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src 'unsafe-inline'",
    );
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
    const page = await res.text();
    expect(page).toContain("<style>");
    expect(page).toContain('<span class="brand">Tool Runtime</span>');
    expect(page).toContain('<a href="/console/#/grants">Grants</a>');
    expect(page).toContain("Test MCP client");
    expect(page).not.toContain("<script");
  });

  it("renders inside the console's shell: its stylesheet and head, the page in #app, no script, read once", async () => {
    const { e, reads } = withAssets(() => new Response(SHELL, { headers: { "content-type": "text/html" } }));
    const path = await authorizePath(await registerNamed(`<script>alert(1)</script>"'&`), { state: "s" });
    const res = await fetchWith(e, path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(
      "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; style-src 'self'; img-src data:",
    );
    const page = await res.text();
    expect(page).toContain('<link rel="stylesheet" crossorigin href="/console/assets/index-Ef56.css">');
    expect(page).toContain("<title>Sign in to the Tool Runtime</title>");
    // The console's no-referrer would send the forms' Origin as "null", which the page refuses.
    expect(page).toContain('<meta name="referrer" content="same-origin" />');
    expect(page).not.toContain("<script");
    expect(page).not.toContain("modulepreload");
    expect(page).not.toContain("<noscript");
    expect(page).not.toContain("<style>");
    expect(page).toMatch(/<div id="app"><header class="top">[\s\S]*<\/main><\/div>/);
    expect(page).toContain("&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;");
    expect(page).toContain('<a href="/console/#/grants">Grants</a>');

    // The choice step (and an error page) in the same shell; the shell was read once.
    const key = await mintKey(env, unique("consent-shell"));
    const chosen = await fetchWith(e, path, form({ step: "sign_in", api_key: key }));
    const choice = await chosen.text();
    expect(choice).toContain("<title>Allow access?</title>");
    expect(choice).toMatch(/<div id="app">[\s\S]*name="ticket"/);
    const refused = await fetchWith(e, await authorizePath("no-such-client", { state: "s" }));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("<title>This sign-in cannot go on</title>");
    expect(reads).toEqual(["/console/"]);
  });

  it("stands alone when the console's shell cannot be read, and reads it again next time", async () => {
    const path = await authorizePath(await register(), { state: "s" });
    for (const answer of [
      () => new Response("not found", { status: 404 }),
      () => new Response("<!doctype html><title>x</title><p>no app here</p>"),
      () => Promise.reject(new Error("the assets are gone")),
    ]) {
      const { e, reads } = withAssets(answer);
      for (let i = 0; i < 2; i++) {
        const res = await fetchWith(e, path);
        expect(res.status).toBe(200);
        const page = await res.text();
        expect(page).toContain("<style>");
        expect(page).toContain("Test MCP client");
      }
      expect(reads).toEqual(["/console/", "/console/"]);
    }
  });
});
