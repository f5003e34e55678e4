/** The bundles page's logic (console/src/lib/bundle-form.ts): whose bundles, the form to a PUT body and back, the MCP URL. */
import { describe, expect, it } from "vitest";
import { createClient, type Bundle } from "../../../client/index.ts";
import {
  bundlesIn,
  EMPTY_FORM,
  formOf,
  mcpUrl,
  scopeOf,
  specOf,
  splitList,
} from "../../../console/src/lib/bundle-form.ts";
import { ok, scripted } from "../client/fake-runtime.ts";

const stored: Bundle = {
  name: "research",
  description: "for research",
  tools: ["json.query", "math.evaluate"],
  prefixes: [],
  channels: ["std"],
  tags: ["maths"],
  discovery: "search",
  updated_at: "2026-12-01T10:00:00.000Z",
};

describe("the bundles page's form", () => {
  it("splits lists at commas and line breaks, dropping blanks", () => {
    expect(splitList("a, b\nc,,\n  d  \n")).toEqual(["a", "b", "c", "d"]);
    expect(splitList(" \n , ")).toEqual([]);
  });

  it("sends only the selectors given, the description when there is one, and the discovery", () => {
    expect(specOf({ ...EMPTY_FORM, name: "n", tags: "maths" })).toEqual({ discovery: "list", tags: ["maths"] });
    expect(
      specOf({
        name: "n",
        description: "  what for ",
        tools: "math.evaluate\njson.query",
        prefixes: "text.",
        channels: "std, lab",
        tags: "",
        discovery: "search",
      }),
    ).toEqual({
      description: "what for",
      tools: ["math.evaluate", "json.query"],
      prefixes: ["text."],
      channels: ["std", "lab"],
      discovery: "search",
    });
  });

  it("puts a stored bundle back in the form, which sends it again as it was", () => {
    const form = formOf(stored);
    expect(form).toEqual({
      name: "research",
      description: "for research",
      tools: "json.query, math.evaluate",
      prefixes: "",
      channels: "std",
      tags: "maths",
      discovery: "search",
    });
    expect(specOf(form)).toEqual({
      description: "for research",
      tools: ["json.query", "math.evaluate"],
      channels: ["std"],
      tags: ["maths"],
      discovery: "search",
    });
  });

  it("gives each bundle its URL under the console's origin", () => {
    expect(mcpUrl("https://tools.example.com", "research")).toBe("https://tools.example.com/mcp/research");
  });
});

describe("whose bundles the page shows", () => {
  it("is a tenant's key's own tenant's; an operator's, the operators' unless it names a tenant", () => {
    expect(scopeOf(false, "other")).toEqual({ operators: false });
    expect(scopeOf(true, "  ")).toEqual({ operators: true });
    expect(scopeOf(true, " acme ")).toEqual({ operators: false, tenant: "acme" });
  });

  it("asks the routes of that scope", async () => {
    const rt = scripted(ok({ bundles: [] }));
    const client = createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch: rt.fetch });
    await bundlesIn(client, scopeOf(true, "")).list();
    await bundlesIn(client, scopeOf(true, "acme")).put("b", { tags: ["maths"] });
    await bundlesIn(client, scopeOf(false, "")).remove("b");
    expect(rt.seen.map((s) => `${s.method} ${s.url.pathname}${s.url.search}`)).toEqual([
      "GET /v1/admin/bundles",
      "PUT /v1/bundles/b?tenant=acme",
      "DELETE /v1/bundles/b",
    ]);
  });
});
