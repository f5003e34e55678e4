/**
 * The consent page's HTML (src/oauth/consent.ts): a small page rendered by the Worker, not a
 * console page, because the client's browser arrives here from the client's redirect and must
 * leave with a redirect back, without the console's sign-in. Two steps: sign in with an API key
 * (or, when configured, through the identity provider); then choose what the client may use.
 * No script; every value is escaped; the forms post to the consent page's URL, whose query is
 * the client's authorization request.
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

const STYLE =
  "body{font:15px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}" +
  "fieldset{border:1px solid #d0d7de;border-radius:6px;margin:1rem 0}label{display:block;margin:.3rem 0}" +
  "input[type=password],select{width:100%;padding:.4rem}button{padding:.45rem 1rem;margin-right:.5rem}" +
  ".problem{color:#b42318}code{background:#f6f8fa;padding:0 .2rem}";

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
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
export function signInPage(client: ClientFacts, problem?: string, idpName?: string): string {
  const idp = idpName
    ? `<form method="post"><input type="hidden" name="step" value="idp"><p><button type="submit">Sign in with ${escapeHtml(idpName)}</button></p></form><p>or</p>`
    : "";
  return page(
    "Sign in to the Tool Runtime",
    `${who(client)}${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ""}${idp}
<form method="post"><input type="hidden" name="step" value="sign_in">
<label for="api_key">Your API key</label><input id="api_key" name="api_key" type="password" autocomplete="off" required>
<p><button type="submit">Continue</button></p></form>`,
  );
}

/**
 * Step 2: the signer's channels, or a bundle; allow or deny. `action` is the consent page's URL
 * when this page is served elsewhere (at the identity provider's callback).
 */
export function choicePage(client: ClientFacts, facts: ChoiceFacts, problem?: string, action?: string): string {
  const channels = facts.channels.includes("*") ? facts.providers : facts.channels;
  const channelBoxes = channels
    .map(
      (c) => `<label><input type="checkbox" name="channel" value="${escapeHtml(c)}" checked> ${escapeHtml(c)}</label>`,
    )
    .join("");
  const bundleOptions = facts.bundles.map((b) => `<option value="${escapeHtml(b)}">${escapeHtml(b)}</option>`).join("");
  return page(
    "Allow access?",
    `${who(client)}${signedIn(facts)}
${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ""}
<form method="post"${action ? ` action="${escapeHtml(action)}"` : ""}><input type="hidden" name="step" value="consent"><input type="hidden" name="ticket" value="${escapeHtml(facts.ticket)}">
<fieldset><legend>What the client may use</legend>
<label><input type="radio" name="grant" value="all" checked> Every channel ${facts.via ? "you may use" : "this key allows"}${facts.channels.includes("*") ? " (all providers, now and later)" : ""}</label>
<label><input type="radio" name="grant" value="channels"> Only these channels:</label>${channelBoxes || "<p>(none)</p>"}
${bundleOptions ? `<label><input type="radio" name="grant" value="bundle"> Only the tools of the bundle</label><select name="bundle" aria-label="bundle">${bundleOptions}</select>` : ""}
</fieldset>
<p><button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></p></form>`,
  );
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
export function errorPage(message: string, startAgain?: string): string {
  const again = startAgain ? `<p><a href="${escapeHtml(startAgain)}">Start the sign-in again</a></p>` : "";
  return page("This sign-in cannot go on", `<p class="problem" role="alert">${escapeHtml(message)}</p>${again}`);
}

/** The consent page's answer: never cached, framed by no other site, no script. */
export function htmlResponse(body: string, status = 200): Response {
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
