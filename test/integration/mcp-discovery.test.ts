/**
 * Progressive discovery in workerd (docs/contract.md#bundles): a bundle with `discovery: "search"`
 * lists only `search_tools` and `call_tool`; the search ranks the bundle's tools the caller may
 * see and answers them as `tools/list` would; `call_tool` is a `tools/call` by another name —
 * the same result, the same refusals, the same `_meta` options — on both protocol eras.
 */
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { http, legacy, MCP_HEADERS, MODERN, type Answer } from "./mcp-http.ts";
import { mintKey } from "./worker-http.ts";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A roomy budget: the first call of a file also loads the Worker (vitest.config.ts). */
const ROOMY = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };
const ADMIN = env.DEV_ADMIN_KEY;
const SELECTORS = { prefixes: ["math.", "text.", "json."], tools: ["lab.echo"] };

const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** A 2026-07-28 request to `path`. */
function modern(path: string, key: string, method: string, params: Record<string, unknown> = {}) {
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown>; name?: string };
  return http(
    "POST",
    path,
    key,
    { jsonrpc: "2.0", id: 1, method, params: { ...rest, _meta: { ...ENVELOPE, ..._meta } } },
    {
      ...MCP_HEADERS,
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(rest.name ? { "mcp-name": rest.name } : {}),
    },
  );
}

const ERAS = [
  ["2026-07-28", modern],
  ["2025-11-25", legacy],
] as const;

/** The search bundle and a list bundle of the same tools, made once, deleted at the end. */
const search = unique("search");
const listed = unique("listed");
beforeAll(async () => {
  expect((await http("PUT", `/v1/admin/bundles/${search}`, ADMIN, { ...SELECTORS, discovery: "search" })).status).toBe(
    201,
  );
  expect((await http("PUT", `/v1/admin/bundles/${listed}`, ADMIN, SELECTORS)).status).toBe(201);
});
afterAll(async () => {
  for (const name of [search, listed]) await http("DELETE", `/v1/admin/bundles/${name}`, ADMIN);
});

/** `search_tools` at the search bundle; its structured answer's tools. */
async function found(key: string, args: Record<string, unknown>, era = modern): Promise<any[]> {
  const res = await era(`/mcp/${search}`, key, "tools/call", { name: "search_tools", arguments: args });
  expect(res.status).toBe(200);
  expect(res.body.result.isError).toBeFalsy();
  expect(JSON.parse(res.body.result.content[0].text)).toEqual(res.body.result.structuredContent);
  return res.body.result.structuredContent.tools;
}

/** A result with its execution's id blanked: two runs differ only there. */
function withoutId(result: any) {
  expect(result._meta["io.tool-runtime/execution_id"]).toEqual(expect.any(String));
  return { ...result, _meta: { ...result._meta, "io.tool-runtime/execution_id": "…" } };
}

describe("the bundle's discovery field", () => {
  it("is list unless asked, and search when asked", async () => {
    expect((await http("GET", `/v1/admin/bundles/${listed}`, ADMIN)).body.discovery).toBe("list");
    expect((await http("GET", `/v1/admin/bundles/${search}`, ADMIN)).body.discovery).toBe("search");
  });
});

describe("a search bundle", () => {
  it.each(ERAS)("lists exactly search_tools and call_tool (%s)", async (_, era) => {
    const key = await mintKey(env, unique("discovery-list"));
    const res = await era(`/mcp/${search}`, key, "tools/list");
    expect(res.status).toBe(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual(["search_tools", "call_tool"]);
    // The same tools, listed in full, at the list bundle.
    expect((await era(`/mcp/${listed}`, key, "tools/list")).body.result.tools.length).toBeGreaterThan(2);
  });

  it.each(ERAS)("ranks first the tool whose description the query's words come from (%s)", async (_, era) => {
    const key = await mintKey(env, unique("discovery-rank"));
    const tools = await found(key, { query: "evaluate an arithmetic expression with parentheses" }, era);
    expect(tools[0].name).toBe("math.evaluate");
    // In the shapes tools/list gives them, at the same bundle listed in full.
    const full = (await era(`/mcp/${listed}`, key, "tools/list")).body.result.tools;
    for (const tool of tools) {
      const { name, title, description, inputSchema, annotations } = full.find((t: any) => t.name === tool.name);
      expect(tool).toEqual({ name, title, description, inputSchema, annotations });
    }
  });

  it("finds a tool by its tags (docs/contract.md#tags), as tools/list gives them", async () => {
    const key = await mintKey(env, unique("discovery-tags"));
    const full = (await modern(`/mcp/${listed}`, key, "tools/list")).body.result.tools;
    const tagged = full.find((t: any) => t.name === "json.query");
    expect(tagged._meta["io.tool-runtime/tags"]).toEqual(["data", "json"]);
    // "data" is one of json.query's tags, and no word of its name, description or input schema.
    expect(JSON.stringify([tagged.name, tagged.description, tagged.inputSchema]).toLowerCase()).not.toContain("data");
    expect((await found(key, { query: "data" }))[0].name).toBe("json.query");
  });

  it("answers at most limit tools, 5 unless told, and refuses a limit out of 1..20", async () => {
    const key = await mintKey(env, unique("discovery-limit"));
    // "json text math lab" matches every tool of the bundle by name: more than 2 of them.
    const broad = { query: "json text math lab echo" };
    const all = await found(key, { ...broad, limit: 20 });
    expect(all.length).toBeGreaterThan(2);
    expect(await found(key, { ...broad, limit: 2 })).toEqual(all.slice(0, 2));
    expect(await found(key, broad)).toEqual(all.slice(0, 5));
    for (const args of [{ ...broad, limit: 21 }, { ...broad, limit: 0 }, { query: "" }, {}]) {
      const res = await modern(`/mcp/${search}`, key, "tools/call", { name: "search_tools", arguments: args });
      expect(res.body.error.code).toBe(-32602);
      expect(res.body.error.data.error.code).toBe("invalid_input");
    }
  });

  it("never finds a tool the caller's channels hide, nor one outside the bundle", async () => {
    const lab = await mintKey(env, unique("discovery-lab"));
    const noLab = await mintKey(env, unique("discovery-nolab"), { channels: ["std", "community"] });
    expect((await found(lab, { query: "echo returns its input unchanged" })).map((t) => t.name)).toContain("lab.echo");
    const hidden = (await found(noLab, { query: "echo returns its input unchanged", limit: 20 })).map((t) => t.name);
    expect(hidden).not.toContain("lab.echo");
    // lab.crash is a lab tool the bundle does not hold.
    expect(
      (await found(lab, { query: "crash throws unexpected exception", limit: 20 })).map((t) => t.name),
    ).not.toContain("lab.crash");
  });
});

describe("a key limited to bundles", () => {
  it("searches on /mcp when all its bundles are search bundles, and lists when one is not", async () => {
    const names = async (key: string) =>
      (await modern("/mcp", key, "tools/list")).body.result.tools.map((t: { name: string }) => t.name);
    expect(await names(await mintKey(env, unique("discovery-key"), { bundles: [search] }))).toEqual([
      "search_tools",
      "call_tool",
    ]);
    const mixed = await names(await mintKey(env, unique("discovery-key"), { bundles: [search, listed] }));
    expect(mixed).toContain("math.evaluate");
    expect(mixed).not.toContain("search_tools");
  });
});

describe("call_tool", () => {
  it.each(ERAS)("answers what a direct tools/call answers, a success and a failed run (%s)", async (_, era) => {
    const key = await mintKey(env, unique("discovery-call"));
    const path = `/mcp/${search}`;
    for (const input of [{ expression: "2 + 3" }, { expression: "1 / 0" }]) {
      const direct = await era(path, key, "tools/call", { name: "math.evaluate", arguments: input, _meta: ROOMY });
      const via = await era(path, key, "tools/call", {
        name: "call_tool",
        arguments: { name: "math.evaluate", arguments: input },
        _meta: ROOMY,
      });
      expect(via.status).toBe(direct.status);
      expect(withoutId(via.body.result)).toEqual(withoutId(direct.body.result));
    }
    const ok = await era(path, key, "tools/call", {
      name: "call_tool",
      arguments: { name: "math.evaluate", arguments: { expression: "2 + 3" } },
      _meta: ROOMY,
    });
    expect(ok.body.result.structuredContent).toEqual({ value: 5 });
    const failed = await era(path, key, "tools/call", {
      name: "call_tool",
      arguments: { name: "math.evaluate", arguments: { expression: "1 / 0" } },
      _meta: ROOMY,
    });
    expect(failed.body.result.isError).toBe(true);
    expect(failed.body.result.structuredContent.error.code).toBe("tool_error");
  });

  it.each(ERAS)(
    "refuses a tool outside the bundle exactly as a direct call of an unknown tool (%s)",
    async (_, era) => {
      const key = await mintKey(env, unique("discovery-outside"));
      const path = `/mcp/${search}`;
      const via = (tool: string) =>
        era(path, key, "tools/call", { name: "call_tool", arguments: { name: tool, arguments: {} }, _meta: ROOMY });
      const unknown = await era(path, key, "tools/call", { name: "no.such.tool", arguments: {}, _meta: ROOMY });
      expect(unknown.body.error.code).toBe(-32602);
      expect(unknown.body.error.data.error.code).toBe("tool_not_found");
      for (const tool of ["lab.crash", "no.such.tool"]) {
        const outside = await via(tool);
        expect(outside.status).toBe(unknown.status);
        expect(outside.body.error).toEqual({
          ...unknown.body.error,
          message: `no tool named ${tool}`,
          data: { error: { ...unknown.body.error.data.error, message: `no tool named ${tool}`, details: { tool } } },
        });
      }
    },
  );

  it("carries the request's _meta options to the call: an idempotency key, a limit", async () => {
    const key = await mintKey(env, unique("discovery-meta"));
    const path = `/mcp/${search}`;
    const meta = { ...ROOMY, "io.tool-runtime/idempotency_key": unique("k") };
    const input = { expression: "6 * 7" };
    const via = await modern(path, key, "tools/call", {
      name: "call_tool",
      arguments: { name: "math.evaluate", arguments: input },
      _meta: meta,
    });
    const direct = await modern(path, key, "tools/call", { name: "math.evaluate", arguments: input, _meta: meta });
    expect(via.body.result.structuredContent).toEqual({ value: 42 });
    // One execution: the key reached the call, and both paths found it.
    expect(direct.body.result._meta["io.tool-runtime/execution_id"]).toBe(
      via.body.result._meta["io.tool-runtime/execution_id"],
    );

    const bad = { "io.tool-runtime/limits": { timeout_ms: -1 } };
    const refusedVia = await modern(path, key, "tools/call", {
      name: "call_tool",
      arguments: { name: "math.evaluate", arguments: input },
      _meta: bad,
    });
    const refused = await modern(path, key, "tools/call", { name: "math.evaluate", arguments: input, _meta: bad });
    expect(refused.body.error.data.error.code).toBe("invalid_request");
    expect(refusedVia.body.error).toEqual(refused.body.error);
  });

  it("refuses arguments its schema does not take as invalid_input", async () => {
    const key = await mintKey(env, unique("discovery-args"));
    for (const args of [{}, { name: 7 }, { name: "math.evaluate", arguments: [1] }]) {
      const res = await modern(`/mcp/${search}`, key, "tools/call", { name: "call_tool", arguments: args });
      expect(res.body.error.code).toBe(-32602);
      expect(res.body.error.data.error.code).toBe("invalid_input");
    }
  });

  it("is not there at a list bundle: there it is an unknown tool", async () => {
    const key = await mintKey(env, unique("discovery-plain"));
    const res = await modern(`/mcp/${listed}`, key, "tools/call", {
      name: "call_tool",
      arguments: { name: "math.evaluate", arguments: { expression: "1" } },
      _meta: ROOMY,
    });
    expect(res.body.error.data.error).toMatchObject({ code: "tool_not_found", details: { tool: "call_tool" } });
  });
});
