/**
 * A tool bundle through the official MCP client (`@modelcontextprotocol/client`) on both
 * protocol eras (docs/contract.md#bundles): an operator defines it, `/mcp/{bundle}` lists only
 * its tools, calls them, and refuses a tool outside it as an unknown tool; an unknown bundle
 * fails the client's connect. A search bundle lists search_tools and call_tool, and the client
 * finds and calls a tool through them.
 */
import { ProtocolError } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asAdmin } from "./http.ts";
import { connect, MCP_URL, newKey } from "./mcp.ts";

/** A budget the call does not need in full (math.evaluate's own is shorter than a busy machine's overhead). */
const ROOMY_META = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };
const BUNDLE = `e2e-${crypto.randomUUID().slice(0, 8)}`;
const SEARCH = `${BUNDLE}-search`;

beforeAll(async () => {
  const body = { description: "maths and text", tools: ["math.evaluate"], prefixes: ["text."] };
  expect((await asAdmin("PUT", `/v1/admin/bundles/${BUNDLE}`, body)).status).toBe(201);
  expect((await asAdmin("PUT", `/v1/admin/bundles/${SEARCH}`, { ...body, discovery: "search" })).status).toBe(201);
});

afterAll(async () => {
  expect((await asAdmin("DELETE", `/v1/admin/bundles/${BUNDLE}`)).status).toBe(200);
  expect((await asAdmin("DELETE", `/v1/admin/bundles/${SEARCH}`)).status).toBe(200);
});

describe.each(["modern", "legacy"] as const)("a bundle with the official client on %s", (era) => {
  it("lists only the bundle's tools and calls one; a tool outside it is an unknown tool", async () => {
    const key = await newKey();
    const whole = await connect(era, key);
    const { client } = await connect(era, key, `${MCP_URL}/${BUNDLE}`);
    try {
      const all = (await whole.client.listTools()).tools.map((t) => t.name);
      const listed = (await client.listTools()).tools.map((t) => t.name).sort();
      expect(listed).toEqual(all.filter((n) => n === "math.evaluate" || n.startsWith("text.")).sort());
      expect(listed).toContain("math.evaluate");
      expect(all).toContain("json.query");

      const result = await client.callTool({
        name: "math.evaluate",
        arguments: { expression: "6 * 7" },
        _meta: ROOMY_META,
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ value: 42 });

      const outside = await client
        .callTool({ name: "json.query", arguments: { document: {}, path: "" }, _meta: ROOMY_META })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(outside).toBeInstanceOf(ProtocolError);
      expect((outside as ProtocolError).code).toBe(-32602);
      expect((outside as ProtocolError).data).toMatchObject({
        error: { code: "tool_not_found", message: "no tool named json.query", details: { tool: "json.query" } },
      });
    } finally {
      await client.close();
      await whole.client.close();
    }
  });

  it("finds a tool with search_tools and calls it with call_tool at a search bundle", async () => {
    const { client } = await connect(era, await newKey(), `${MCP_URL}/${SEARCH}`);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["search_tools", "call_tool"]);
      const found = await client.callTool({ name: "search_tools", arguments: { query: "arithmetic expression" } });
      expect(found.isError).toBeFalsy();
      const tools = (found.structuredContent as { tools: { name: string }[] }).tools;
      expect(tools[0].name).toBe("math.evaluate");
      const result = await client.callTool({
        name: "call_tool",
        arguments: { name: tools[0].name, arguments: { expression: "6 * 7" } },
        _meta: ROOMY_META,
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ value: 42 });
    } finally {
      await client.close();
    }
  });

  it("cannot connect to a bundle that does not exist", async () => {
    const key = await newKey();
    await expect(connect(era, key, `${MCP_URL}/${BUNDLE}-missing`)).rejects.toThrow(/no bundle/);
  });
});
