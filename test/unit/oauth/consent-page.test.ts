/** The consent page shows what a client registered about itself, which anyone can choose: escaped (src/oauth/consent-page.ts). */
import { describe, expect, it } from "vitest";
import {
  appMarkup,
  choicePage as choiceView,
  signInPage as signInView,
  standalonePage,
} from "../../../src/oauth/consent-page.ts";

/** Each step as the person meets it: its content in the console's markup. */
const signInPage = (...args: Parameters<typeof signInView>) => appMarkup(signInView(...args));
const choicePage = (...args: Parameters<typeof choiceView>) => appMarkup(choiceView(...args));

const hostile = {
  name: `<script>alert(1)</script>"'&`,
  domain: `evil.example"><img src=y>`,
  redirectHost: `evil.example"><img src=x>`,
  redirectIsLoopback: false,
};

describe("the consent page", () => {
  it("escapes the client's name, domain and redirect host", () => {
    const page = signInPage(hostile, "<b>problem</b>");
    expect(page).not.toContain("<script>");
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<b>problem");
    expect(page).toContain("&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;");
  });

  it("names a metadata-document client's domain, says a registered client's name is unchecked, and warns of a local app", () => {
    const cimd = signInPage({
      name: "Acme Agent",
      domain: "acme.example",
      redirectHost: "acme.example",
      redirectIsLoopback: false,
    });
    expect(cimd).toContain("<strong>Acme Agent</strong> of <code>acme.example</code>");
    expect(cimd).not.toContain("checked by nobody");
    expect(cimd).not.toContain("an app on this computer");
    const registered = signInPage({ name: "Acme Agent", redirectHost: "127.0.0.1", redirectIsLoopback: true });
    expect(registered).toContain("<strong>Acme Agent</strong> (a name the client gave itself, checked by nobody)");
    expect(registered).toContain("It returns to an app on this computer");
  });

  it("offers the key's channels, or every provider for a key that reaches all, and only the bundles given", () => {
    const facts = { tenant: "acme", agent: "ada", providers: ["std", "lab"], bundles: ["research"], ticket: "t" };
    const own = choicePage(hostile, { ...facts, channels: ["std"] });
    expect(own).toContain('value="std"');
    expect(own).not.toContain('value="lab"');
    expect(own).toContain('<option value="research">');
    const all = choicePage(hostile, { ...facts, channels: ["*"], bundles: [] });
    expect(all).toContain('value="lab"');
    expect(all).not.toContain('name="bundle"');
  });

  it("offers the identity provider's sign-in only when named, and says whom it signed in, escaped", () => {
    expect(signInPage(hostile)).not.toContain('value="idp"');
    const offered = signInPage(hostile, undefined, "<i>Acme</i> SSO");
    expect(offered).toContain('<input type="hidden" name="step" value="idp">');
    expect(offered).toContain("Sign in with &#60;i&#62;Acme&#60;/i&#62; SSO");
    const facts = { tenant: "acme", agent: "u-1", providers: [], bundles: [], ticket: "t", channels: ["std"] };
    const chosen = choicePage(
      hostile,
      { ...facts, via: "Acme SSO", who: "<ada>" },
      undefined,
      "/console/authorize?a=1&b=2",
    );
    expect(chosen).toContain("Signed in with Acme SSO as <strong>&#60;ada&#62;</strong>");
    expect(chosen).toContain('action="/console/authorize?a=1&#38;b=2"');
    expect(chosen).toContain("Every channel you may use");
  });

  it("speaks the console's markup, links to its Grants page, and stands alone with the same content", () => {
    const view = signInView(hostile);
    const markup = appMarkup(view);
    expect(markup).toContain('<header class="top"><span class="brand">Tool Runtime</span>');
    expect(markup).toContain('<section class="sign-in" aria-labelledby="consent-heading">');
    expect(markup).toContain('<a href="/console/#/grants">Grants</a>');
    const alone = standalonePage(view);
    expect(alone).toContain(markup);
    expect(alone).toContain("<title>Sign in to the Tool Runtime</title>");
    expect(alone).not.toContain("<script");
  });
});
