/** `trt bundles list|show|put|remove` (cli/commands/bundles.ts): its command line, the body it sends and what it prints. */
import { describe, expect, it } from "vitest";
import { parseCommandLine } from "../../../cli/args.ts";
import { bundleSpec, renderBundle, renderBundleList } from "../../../cli/commands/bundles.ts";
import { UsageError } from "../../../cli/exit-codes.ts";
import { commandUsage } from "../../../cli/help.ts";
import type { Bundle } from "../../../client/index.ts";

const parse = (argv: string[]) => parseCommandLine(argv);
const bundle = (o: Partial<Bundle> = {}): Bundle => ({
  name: "research",
  description: "for the research agent",
  tools: ["json.query", "math.evaluate"],
  prefixes: ["text."],
  channels: [],
  tags: ["maths"],
  discovery: "search",
  updated_at: "2026-12-01T10:00:00.000Z",
  ...o,
});

describe("trt bundles' command line", () => {
  it("reads put's selectors split at commas and repeated, its discovery, description and tenant", () => {
    const p = parse([
      "bundles",
      "put",
      "research",
      "--tools",
      "math.evaluate, json.query",
      "--tools",
      "text.stats",
      "--prefixes",
      "text.",
      "--channels",
      "std",
      "--tags",
      "maths",
      "--discovery",
      "search",
      "--description",
      "for research",
      "--tenant",
      "acme",
    ]);
    expect(p).toMatchObject({
      command: "bundles put",
      args: ["research"],
      flags: {
        tools: ["math.evaluate", "json.query", "text.stats"],
        prefixes: ["text."],
        channels: ["std"],
        tags: ["maths"],
        discovery: "search",
        description: "for research",
        tenant: "acme",
      },
    });
    expect(bundleSpec(p.flags)).toEqual({
      description: "for research",
      tools: ["math.evaluate", "json.query", "text.stats"],
      prefixes: ["text."],
      channels: ["std"],
      tags: ["maths"],
      discovery: "search",
    });
    // Only what was given is sent: the runtime's defaults (discovery "list", no description) for the rest.
    expect(bundleSpec(parse(["bundles", "put", "b", "--tags", "maths"]).flags)).toEqual({ tags: ["maths"] });
    expect(parse(["bundles", "list", "--tenant", "acme"])).toMatchObject({
      command: "bundles list",
      flags: { tenant: "acme" },
    });
    expect(parse(["bundles", "show", "research"]).args).toEqual(["research"]);
    expect(parse(["bundles", "remove", "research"]).command).toBe("bundles remove");
  });

  it("refuses, before sending, a put without a selector, a bad discovery, and a wrong arity", () => {
    expect(() => parse(["bundles", "put", "b"])).toThrow(
      /needs at least one of --tools, --prefixes, --channels, --tags/,
    );
    expect(() => parse(["bundles", "put", "b", "--tools", " , "])).toThrow(UsageError);
    expect(() => parse(["bundles", "put", "b", "--tags", "x", "--discovery", "browse"])).toThrow(
      '--discovery must be list or search, not "browse"',
    );
    expect(() => parse(["bundles", "put", "b", "--channel", "std"])).toThrow(/did you mean --channels\?/);
    for (const argv of [["bundles"], ["bundles", "show"], ["bundles", "remove", "a", "b"], ["bundles", "list", "x"]])
      expect(() => parse(argv), argv.join(" ")).toThrow(UsageError);
  });

  it("has help for the group and each command", () => {
    expect(commandUsage(["bundles"])).toMatch(
      /bundles list[\s\S]*bundles show NAME[\s\S]*bundles put NAME[\s\S]*bundles remove NAME/,
    );
    expect(commandUsage(["bundles", "put"])).toMatch(/put replaces the whole bundle[\s\S]*--discovery MODE/);
  });
});

describe("trt bundles' output", () => {
  it("lists bundles as a table with each one's selectors and MCP URL", () => {
    const out = renderBundleList(
      [bundle(), bundle({ name: "ops", tools: [], tags: [], channels: ["std"], discovery: "list" })],
      "http://rt.example/",
    );
    const lines = out.split("\n");
    expect(lines[0]).toMatch(/^NAME +DISCOVERY +TOOLS +PREFIXES +CHANNELS +TAGS +MCP_URL$/);
    expect(lines[1]).toMatch(
      /^research +search +json\.query,math\.evaluate +text\. +- +maths +http:\/\/rt\.example\/mcp\/research$/,
    );
    expect(lines[2]).toMatch(/^ops +list +- +text\. +std +- +http:\/\/rt\.example\/mcp\/ops$/);
    expect(renderBundleList([], "http://rt.example")).toBe("no bundles\n");
  });

  it("shows one bundle with its description, every selector and its MCP URL", () => {
    expect(renderBundle(bundle(), "http://rt.example")).toBe(
      [
        "research  (discovery search, updated 2026-12-01T10:00:00.000Z)",
        "  for the research agent",
        "  tools    json.query, math.evaluate",
        "  prefixes text.",
        "  channels -",
        "  tags     maths",
        "  mcp      http://rt.example/mcp/research",
        "",
      ].join("\n"),
    );
  });
});
