/**
 * `Mcp-Param-*` headers against a tool's `x-mcp-header` declarations (src/mcp/param-headers.ts):
 * which declarations count, and when a header and the body disagree (the cases of MCP's
 * Streamable HTTP "Custom Headers from Tool Parameters" table).
 */
import { describe, expect, it } from "vitest";
import { headerDeclarations, paramMismatch } from "../../../src/mcp/param-headers.ts";

const schema = {
  type: "object",
  properties: {
    region: { type: "string", "x-mcp-header": "Region" },
    priority: { type: "integer", "x-mcp-header": "Priority" },
    verbose: { type: "boolean", "x-mcp-header": "Verbose" },
    nested: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
    plain: { type: "string" },
  },
};
const declarations = headerDeclarations(schema)!;
const mismatch = (args: unknown, headers: Record<string, string>) =>
  paramMismatch(declarations, args, new Headers(headers));
const b64 = (s: string) => `=?base64?${Buffer.from(s, "utf8").toString("base64")}?=`;

describe("headerDeclarations", () => {
  it("collects the marked properties reached through `properties`, nested ones included", () => {
    expect(declarations).toEqual([
      { path: ["region"], name: "Region", type: "string" },
      { path: ["priority"], name: "Priority", type: "integer" },
      { path: ["verbose"], name: "Verbose", type: "boolean" },
      { path: ["nested", "zone"], name: "Zone", type: "string" },
    ]);
    expect(headerDeclarations({ type: "object", properties: { a: { type: "string" } } })).toEqual([]);
  });

  it("refuses a schema that marks anything the spec does not allow: nothing is checked for it", () => {
    const bad = [
      { type: "object", properties: { a: { type: "object", "x-mcp-header": "A" } } },
      { type: "object", properties: { a: { type: "number", "x-mcp-header": "A" } } },
      { type: "object", properties: { a: { type: "string", "x-mcp-header": "has space" } } },
      { type: "object", properties: { a: { type: "string", "x-mcp-header": "" } } },
      { type: "object", items: { type: "string", "x-mcp-header": "A" } },
      { type: "object", anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] },
      { type: "object", $defs: { d: { type: "string", "x-mcp-header": "A" } } },
      { type: "string", "x-mcp-header": "Root" },
      {
        type: "object",
        properties: { a: { type: "string", "x-mcp-header": "Same" }, b: { type: "string", "x-mcp-header": "same" } },
      },
    ];
    for (const s of bad) expect(headerDeclarations(s), JSON.stringify(s)).toBeUndefined();
  });
});

describe("paramMismatch", () => {
  it("accepts headers that say what the body says: plain, Base64, numbers and booleans as text", () => {
    expect(
      mismatch(
        { region: "eu-west", priority: 3, verbose: false },
        {
          "mcp-param-region": "eu-west",
          "Mcp-Param-Priority": "3",
          "MCP-PARAM-VERBOSE": "false",
        },
      ),
    ).toBeUndefined();
    expect(mismatch({ region: "Zürich " }, { "mcp-param-region": b64("Zürich ") })).toBeUndefined();
    expect(mismatch({ priority: 42 }, { "mcp-param-priority": "42.0" })).toBeUndefined();
    expect(mismatch({ nested: { zone: "a" } }, { "mcp-param-zone": "a" })).toBeUndefined();
  });

  it("takes a value without the whole =?base64?…?= wrapper literally", () => {
    const encoded = Buffer.from("Hello").toString("base64");
    expect(mismatch({ region: encoded }, { "mcp-param-region": encoded })).toBeUndefined();
    expect(mismatch({ region: `=?base64?${encoded}` }, { "mcp-param-region": `=?base64?${encoded}` })).toBeUndefined();
    expect(mismatch({ region: "Hello" }, { "mcp-param-region": encoded })?.header).toBe("Mcp-Param-Region");
  });

  it("asks no header for an argument that is absent or null, and ignores one sent anyway", () => {
    expect(mismatch({}, {})).toBeUndefined();
    expect(mismatch({ region: null }, { "mcp-param-region": "x" })).toBeUndefined();
    expect(mismatch(undefined, {})).toBeUndefined();
  });

  it("refuses a missing header, another value, and Base64 that is not canonical", () => {
    expect(mismatch({ region: "eu" }, {})).toEqual({
      header: "Mcp-Param-Region",
      message: 'the body carries region="eu" but the Mcp-Param-Region header is absent',
    });
    expect(mismatch({ region: "eu" }, { "mcp-param-region": "us" })?.message).toMatch(/decodes to "us"/);
    expect(mismatch({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" })?.message).toMatch(
      /invalid Base64/,
    );
    expect(mismatch({ region: "Hello" }, { "mcp-param-region": "=?base64?SGVs!!!bG8=?=" })?.message).toMatch(
      /invalid Base64/,
    );
    expect(
      mismatch({ region: "x" }, { "mcp-param-region": `=?base64?${Buffer.from([0xff]).toString("base64")}?=` }),
    ).toMatchObject({ header: "Mcp-Param-Region" });
    expect(mismatch({ verbose: true }, { "mcp-param-verbose": "True" })?.header).toBe("Mcp-Param-Verbose");
  });
});
