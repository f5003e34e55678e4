/**
 * A tool's tags (providers/sdk/protocol.ts TOOL_TAG): the SDK refuses a bad declaration where it
 * is written, and the shipped providers' tools carry tags a new user can make a bundle of.
 */
import { describe, expect, it } from "vitest";
import { defineTool } from "../../../../providers/sdk/define.ts";
import { tagsProblem, TOOL_TAGS_MAX } from "../../../../providers/sdk/protocol.ts";
import { communityTools } from "../../../../providers/community/src/tools/index.ts";
import { stdTools } from "../../../../providers/std/src/tools/index.ts";

const base = {
  version: "1.0.0",
  description: "",
  input: {},
  output: {},
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  handler: () => ({}),
} as const;

describe("tagsProblem", () => {
  it.each([
    [undefined],
    [[]],
    [["maths"]],
    [["a", "9", "web-api", "json.schema", "snake_case", "x".repeat(32)]],
    [Array.from({ length: TOOL_TAGS_MAX }, (_, i) => `t${i}`)],
  ])("takes %j", (tags) => {
    expect(tagsProblem(tags)).toBeUndefined();
  });

  it.each([
    ["maths", /a list/],
    [Array.from({ length: TOOL_TAGS_MAX + 1 }, (_, i) => `t${i}`), /at most 16/],
    [["Maths"], /does not match/],
    [[""], /does not match/],
    [["-web"], /does not match/],
    [["web."], /does not match/],
    [["two words"], /does not match/],
    [["x".repeat(33)], /does not match/],
    [[7], /does not match/],
    [["web", "web"], /listed twice/],
  ])("refuses %j", (tags, message) => {
    expect(tagsProblem(tags)).toMatch(message);
  });
});

describe("defineTool", () => {
  it("puts the tags in the manifest, and none when it has none", () => {
    expect(defineTool({ ...base, name: "t.a", tags: ["maths", "demo"] }).manifest.tags).toEqual(["maths", "demo"]);
    expect(defineTool({ ...base, name: "t.b" }).manifest).not.toHaveProperty("tags");
  });

  it.each([[["Bad"]], [["a", "a"]], [Array.from({ length: 17 }, (_, i) => `t${i}`)]])(
    "refuses the tags %j naming the tool",
    (tags) => {
      expect(() => defineTool({ ...base, name: "t.c", tags })).toThrow(/^tool "t\.c": /);
    },
  );
});

describe("the shipped providers' tools", () => {
  it("each carry tags", () => {
    const tagged = Object.fromEntries([...stdTools, ...communityTools].map((t) => [t.manifest.name, t.manifest.tags]));
    expect(tagged).toEqual({
      "math.evaluate": ["maths"],
      "text.stats": ["text"],
      "json.query": ["json", "data"],
      "http.request": ["network", "web"],
      "demo.countdown": ["demo", "streaming"],
    });
  });
});
