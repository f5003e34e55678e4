/** The consent page shows what a client registered about itself, which anyone can choose: escaped (src/oauth/consent-page.ts). */
import { describe, expect, it } from "vitest";
import { choicePage, signInPage } from "../../../src/oauth/consent-page.ts";

const hostile = { name: `<script>alert(1)</script>"'&`, redirectHost: `evil.example"><img src=x>` };

describe("the consent page", () => {
  it("escapes the client's name and redirect host", () => {
    const page = signInPage(hostile, "<b>problem</b>");
    expect(page).not.toContain("<script>");
    expect(page).not.toContain("<img");
    expect(page).not.toContain("<b>problem");
    expect(page).toContain("&#60;script&#62;alert(1)&#60;/script&#62;&#34;&#39;&#38;");
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
});
