/**
 * The consent page's HTML (src/oauth/consent.ts): a page of the console rendered by the Worker
 * in the console's markup, which src/oauth/consent-shell.ts puts into the console's own shell
 * (docs/decisions/46-consent-in-console.md). Two steps: sign in with an API key (or, when
 * configured, through the identity provider); then choose what the client may use. No script;
 * every value is escaped; the forms post to the consent page's URL, whose query is the
 * client's authorization request.
 */

export interface ClientFacts {
  /** The client's own name for itself (its registration's or its metadata document's), or its client_id. */
  name: string;
  /**
   * A metadata-document client's domain: the host of its client_id URL, which served the
   * document, so the client controls it. Absent for a registered client, whose name nobody checked.
   */
  domain?: string;
  /** Where the browser goes back to (a host name): the person sees whom they hand the grant to. */
  redirectHost: string;
  /** The browser goes back to this computer (localhost, 127.0.0.0/8, ::1), where any program may be listening. */
  redirectIsLoopback: boolean;
}

export interface ChoiceFacts {
  tenant: string;
  agent: string;
  /** The identity provider's name when the person signed in through it, and a name they recognise. */
  via?: string;
  who?: string;
  /** The key's channels (`*`: every provider's, listed as `providers`). */
  channels: string[];
  providers: string[];
  /** Bundles the key may be limited to. */
  bundles: string[];
  /** The one-time ticket that stands for the signed-in key on the second form. */
  ticket: string;
}

/** A page of the consent flow: its heading (also the document's title), and its content, already escaped. */
export interface ConsentView {
  title: string;
  /** HTML under the heading. */
  content: string;
}

/** The console's Grants page (console/src/pages/grants-page.tsx), where a tenant's admins see and revoke grants. */
export const GRANTS_HREF = "/console/#/grants";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * What goes into the console's `#app`: its header and brand, then the page in a panel, in the
 * console's own markup and classes (console/src/app.tsx, console/src/components/sign-in.tsx,
 * console/src/styles.css).
 */
export function appMarkup(view: ConsentView): string {
  return `<header class="top"><span class="brand">Tool Runtime</span><span class="muted">Signing in an MCP client</span></header>
<main><section class="sign-in" aria-labelledby="consent-heading"><h1 id="consent-heading">${escapeHtml(view.title)}</h1>
${view.content}
<p class="muted">What you allow is listed on the console's <a href="${GRANTS_HREF}">Grants</a> page, where your tenant's admins can revoke it.</p></section></main>`;
}

/** The console's classes, enough to read well, for the standalone page (src/oauth/consent-shell.ts). */
const STYLE =
  "body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1c1f24}main{padding:0 1rem}" +
  ".top{display:flex;gap:1rem;padding:.6rem 1.5rem;border-bottom:1px solid #d6dbe3;background:#f5f7fa}.brand{font-weight:700}" +
  ".muted{color:#5b6270}.sign-in{max-width:34rem;margin:2rem auto}.field{display:flex;flex-direction:column;gap:.2rem}" +
  ".actions{display:flex;gap:.5rem;flex-wrap:wrap;margin:.5rem 0}fieldset{border:1px solid #d6dbe3;border-radius:8px;margin:1rem 0}" +
  "input[type=password],select{padding:.4rem}button{padding:.4rem .9rem}" +
  ".problem{border-left:4px solid #b91c1c;background:#fef2f2;padding:.1rem .9rem}code{background:#f5f7fa;padding:0 .2rem}";

/** The page on its own, when the console's shell cannot be read (src/oauth/consent-shell.ts): the same content, its own style. */
export function standalonePage(view: ConsentView): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(view.title)}</title><style>${STYLE}</style></head><body>${appMarkup(view)}</body></html>`;
}

function alert(problem?: string): string {
  return problem ? `<div class="problem" role="alert"><p><strong>${escapeHtml(problem)}</strong></p></div>` : "";
}

function who(client: ClientFacts): string {
  const origin = client.domain
    ? ` of <code>${escapeHtml(client.domain)}</code>`
    : " (a name the client gave itself, checked by nobody)";
  const loopback = client.redirectIsLoopback
    ? "<p>It returns to an app on this computer: only allow it if you just started the sign-in from an app you trust.</p>"
    : "";
  return `<p><strong>${escapeHtml(client.name)}</strong>${origin}, returning to <code>${escapeHtml(client.redirectHost)}</code>, asks to call tools of this Tool Runtime through MCP on your behalf.</p>${loopback}`;
}

/**
 * Step 1: the API key of the person's tenant (its own limits apply to everything the client
 * does), or, when `idpName` is given, the identity provider's sign-in beside it.
 */
export function signInPage(client: ClientFacts, problem?: string, idpName?: string): ConsentView {
  const idp = idpName
    ? `<form method="post"><input type="hidden" name="step" value="idp"><div class="actions"><button type="submit">Sign in with ${escapeHtml(idpName)}</button></div></form><p class="muted">or</p>`
    : "";
  return {
    title: "Sign in to the Tool Runtime",
    content: `${who(client)}${alert(problem)}${idp}
<form method="post"><input type="hidden" name="step" value="sign_in">
<div class="field"><label for="api_key">Your API key</label><input id="api_key" name="api_key" type="password" autocomplete="off" spellcheck="false" required aria-describedby="api_key_help">
<p id="api_key_help" class="muted">A <code>trt_…</code> key of your tenant: typed here once, never written into the page.</p></div>
<div class="actions"><button type="submit">Continue</button></div></form>`,
  };
}

/**
 * Step 2: the signer's channels, or a bundle; allow or deny. `action` is the consent page's URL
 * when this page is served elsewhere (at the identity provider's callback).
 */
export function choicePage(client: ClientFacts, facts: ChoiceFacts, problem?: string, action?: string): ConsentView {
  const channels = facts.channels.includes("*") ? facts.providers : facts.channels;
  const channelBoxes = channels
    .map(
      (c) => `<label><input type="checkbox" name="channel" value="${escapeHtml(c)}" checked> ${escapeHtml(c)}</label>`,
    )
    .join("");
  const bundleOptions = facts.bundles.map((b) => `<option value="${escapeHtml(b)}">${escapeHtml(b)}</option>`).join("");
  return {
    title: "Allow access?",
    content: `${who(client)}${signedIn(facts)}
${alert(problem)}
<form method="post"${action ? ` action="${escapeHtml(action)}"` : ""}><input type="hidden" name="step" value="consent"><input type="hidden" name="ticket" value="${escapeHtml(facts.ticket)}">
<fieldset><legend>What the client may use</legend>
<div><label><input type="radio" name="grant" value="all" checked> Every channel ${facts.via ? "you may use" : "this key allows"}${facts.channels.includes("*") ? " (all providers, now and later)" : ""}</label></div>
<div><label><input type="radio" name="grant" value="channels"> Only these channels:</label></div><div class="actions">${channelBoxes || "(none)"}</div>
${bundleOptions ? `<div class="actions"><label><input type="radio" name="grant" value="bundle"> Only the tools of the bundle</label><select name="bundle" aria-label="bundle">${bundleOptions}</select></div>` : ""}
</fieldset>
<div class="actions"><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></div></form>`,
  };
}

function signedIn(facts: ChoiceFacts): string {
  const as = `agent <code>${escapeHtml(facts.agent)}</code> of tenant <code>${escapeHtml(facts.tenant)}</code>`;
  if (!facts.via) return `<p>Signed in as ${as}. The client can never do more than this key.</p>`;
  const person = facts.who ? `<strong>${escapeHtml(facts.who)}</strong>, ` : "";
  return `<p>Signed in with ${escapeHtml(facts.via)} as ${person}${as}. The client can never do more than your sign-in allows.</p>`;
}

/**
 * A request that cannot go on and cannot go back to the client (an unknown client, a redirect
 * URI it did not register, a failed sign-in at the identity provider). `startAgain`, a path of
 * this origin, is the consent page of the client's request, when it is known: nothing is lost.
 */
export function errorPage(message: string, startAgain?: string): ConsentView {
  const again = startAgain ? `<p><a href="${escapeHtml(startAgain)}">Start the sign-in again</a></p>` : "";
  return { title: "This sign-in cannot go on", content: `${alert(message)}${again}` };
}
