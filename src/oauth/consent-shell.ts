/**
 * The consent page's answer, inside the console's own shell (docs/decisions/46-consent-in-console.md):
 * the console's built index.html, read through the ASSETS binding once per isolate, keeps its
 * <head> (the console's stylesheet) and gets the page's title, loses its script, and takes the
 * page's content (src/oauth/consent-page.ts) into `#app`. So the page looks and reads as the
 * console and still works without JavaScript and before anyone has a console key. Without the
 * binding (a configuration without assets) or when the read fails, the same content is served
 * as a standalone page: the OAuth flow never depends on the console's build.
 */
import { appMarkup, standalonePage, type ConsentView } from "./consent-page.ts";

/** The console's index.html, as the assets serve it (html_handling: /console/index.html redirects here). */
const SHELL_URL = "https://assets.invalid/console/";

/** The shell's text, per ASSETS binding (one per isolate); only a shell that was read is kept. */
const shells = new WeakMap<Fetcher, string>();

/**
 * Both pages: framed by no other site, no script, no <base>. No `form-action`: Chrome applies it
 * to the redirect that answers a form's POST, and the last form's answer is a 302 to the
 * client's redirect URI, another origin that only the library's checks vouch for.
 */
const COMMON_CSP = "default-src 'none'; base-uri 'none'; frame-ancestors 'none'";
/** In the shell: the console's stylesheet (a file of this origin) and its `data:` icon. */
const SHELL_CSP = `${COMMON_CSP}; style-src 'self'; img-src data:`;
/** The standalone page carries its style inline. */
const STANDALONE_CSP = `${COMMON_CSP}; style-src 'unsafe-inline'`;

/** The consent page's answer: `view` in the console's shell, or standalone; never cached. */
export async function consentResponse(env: Env, view: ConsentView, status = 200): Promise<Response> {
  const shell = await consoleShell(env);
  const inShell = shell === undefined ? undefined : await intoShell(shell, view);
  return new Response(inShell ?? standalonePage(view), {
    status,
    headers: {
      "Content-Type": "text/html; charset=utf-8",
      "Cache-Control": "no-store",
      "Content-Security-Policy": inShell === undefined ? STANDALONE_CSP : SHELL_CSP,
      "X-Frame-Options": "DENY",
      "X-Content-Type-Options": "nosniff",
      // Not no-referrer: under it a browser sends the form's Origin as "null", which the
      // Origin checks (here and src/auth/local-only.ts) must refuse. The page's URL (the
      // client's request) still never leaves this origin in a Referer.
      "Referrer-Policy": "same-origin",
    },
  });
}

/** The console's index.html, or undefined when there is no ASSETS binding or it could not be read. */
async function consoleShell(env: Env): Promise<string | undefined> {
  const assets: Fetcher | undefined = env.ASSETS;
  if (!assets) return undefined;
  const kept = shells.get(assets);
  if (kept !== undefined) return kept;
  try {
    const res = await assets.fetch(SHELL_URL);
    const text = await res.text();
    if (!res.ok || !text.includes('id="app"'))
      throw new Error(`${SHELL_URL} answered ${res.status}${res.ok ? " without #app" : ""}`);
    shells.set(assets, text);
    return text;
  } catch (err) {
    console.error(JSON.stringify({ msg: "consent page: the console's shell is not readable", error: String(err) }));
    return undefined;
  }
}

/** `view` in `shell`, or undefined when the shell has no `#app` to hold it. */
async function intoShell(shell: string, view: ConsentView): Promise<string | undefined> {
  let placed = false;
  const text = await new HTMLRewriter()
    .on("title", { element: (e) => void e.setInnerContent(view.title) })
    // The console's own `no-referrer` would make the forms' Origin "null" (see Referrer-Policy above).
    .on('meta[name="referrer"]', { element: (e) => void e.setAttribute("content", "same-origin") })
    // No script on this page: the console's module, its preloads, its <noscript> notice.
    .on("script", { element: (e) => void e.remove() })
    .on('link[rel="modulepreload"]', { element: (e) => void e.remove() })
    .on("noscript", { element: (e) => void e.remove() })
    .on("#app", {
      element: (e) => {
        placed = true;
        e.setInnerContent(appMarkup(view), { html: true });
      },
    })
    .transform(new Response(shell))
    .text();
  return placed ? text : undefined;
}
