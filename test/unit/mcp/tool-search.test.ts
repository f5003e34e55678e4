/**
 * The lexical ranking of `search_tools` (src/mcp/tool-search.ts): words of the name weigh more
 * than words of the description or the tags, which weigh more than the input schema's; stems count half;
 * ties go by name; tools that match nothing are left out.
 */
import { describe, expect, it } from "vitest";
import { rankTools, wordsOf, type Searchable } from "../../../src/mcp/tool-search.ts";

function tool(name: string, description = "", properties: Record<string, unknown> = {}): Searchable {
  return { name, description, inputSchema: { type: "object", properties } };
}

const names = (tools: Searchable[]) => tools.map((t) => t.name);

describe("wordsOf", () => {
  it("splits names, camelCase and punctuation, lowercases, and drops filler words", () => {
    expect(wordsOf("math.evaluate")).toEqual(["math", "evaluate"]);
    expect(wordsOf("the maxDepth of a JSON_document, in bytes")).toEqual(["max", "depth", "json", "document", "bytes"]);
    expect(wordsOf("Zählt Wörter")).toEqual(["zählt", "wörter"]);
  });
});

describe("rankTools", () => {
  const calc = tool("math.evaluate", "Evaluates an arithmetic expression", { expression: { type: "string" } });
  const query = tool("json.query", "Reads a value out of a JSON document by pointer", {
    document: {},
    path: { type: "string", description: "a JSON pointer" },
  });
  const count = tool("text.count", "Counts the words of a text", { text: { type: "string" } });
  const all = [query, count, calc];

  it("ranks the tool whose description holds the query's words first", () => {
    expect(names(rankTools(all, "arithmetic expression", 5))).toEqual(["math.evaluate"]);
    expect(names(rankTools(all, "read a value from a JSON document", 5))[0]).toBe("json.query");
  });

  it("weighs a word in the name over the description over the input schema", () => {
    const inName = tool("zeta.word", "nothing", {});
    const inDescription = tool("beta.other", "a word here", {});
    const inSchema = tool("alpha.third", "nothing", { word: { type: "string" } });
    expect(names(rankTools([inSchema, inDescription, inName], "word", 5))).toEqual([
      "zeta.word",
      "beta.other",
      "alpha.third",
    ]);
  });

  it("finds a tool by its tags, weighed as its description, over its input schema", () => {
    const tagged = { ...tool("c.fetch", "Gets a page"), _meta: { "io.tool-runtime/tags": ["network", "web"] } };
    const inSchema = tool("a.other", "nothing", { network: { type: "string" } });
    const inDescription = tool("b.other", "uses the network");
    expect(names(rankTools([inSchema, tagged, calc], "web", 5))).toEqual(["c.fetch"]);
    expect(names(rankTools([inSchema, tagged, inDescription], "network", 5))).toEqual([
      "b.other",
      "c.fetch",
      "a.other",
    ]);
    // A `_meta` without tags, or with something else there, adds nothing.
    expect(rankTools([{ ...tool("d.x"), _meta: { "io.tool-runtime/tags": "web" } }], "web", 5)).toEqual([]);
  });

  it("reads nested property names and descriptions", () => {
    const nested = tool("a.b", "", { outer: { type: "object", properties: { inner: { description: "a colour" } } } });
    expect(names(rankTools([nested, calc], "colour", 5))).toEqual(["a.b"]);
    expect(names(rankTools([nested, calc], "inner", 5))).toEqual(["a.b"]);
  });

  it("counts a shared stem half, and not for short words", () => {
    const exact = tool("b.tool", "evaluate");
    const stem = tool("a.tool", "evaluates");
    expect(names(rankTools([stem, exact], "evaluate", 5))).toEqual(["b.tool", "a.tool"]);
    expect(rankTools([tool("x.y", "mat")], "math", 5)).toEqual([]);
  });

  it("breaks ties by name, whatever the order given", () => {
    const a = tool("a.x", "same words");
    const b = tool("b.x", "same words");
    expect(names(rankTools([b, a], "words", 5))).toEqual(["a.x", "b.x"]);
    expect(names(rankTools([a, b], "words", 5))).toEqual(["a.x", "b.x"]);
  });

  it("answers at most `limit`, and nothing for words no tool holds or only filler", () => {
    expect(rankTools(all, "json text math", 2)).toHaveLength(2);
    expect(rankTools(all, "json text math", 5)).toHaveLength(3);
    expect(rankTools(all, "spaceship", 5)).toEqual([]);
    expect(rankTools(all, "the of a", 5)).toEqual([]);
  });
});
