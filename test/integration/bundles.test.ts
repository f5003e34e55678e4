/**
 * Tool bundles in workerd (docs/contract.md#bundles): operators keep them through the admin
 * API, and `/mcp/{bundle}` lists and calls only the tools of the bundle that the caller may
 * see, on both protocol eras; a tool outside it is refused exactly as an unknown tool is.
 */
import { env } from "cloudflare:workers";
import { afterAll, describe, expect, it } from "vitest";
import { http, legacy, MCP_HEADERS, MODERN, type Answer } from "./mcp-http.ts";
import { mintKey } from "./worker-http.ts";

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A roomy budget: the first call of a file also loads the Worker (vitest.config.ts). */
const ROOMY = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };
const ADMIN = env.DEV_ADMIN_KEY;

/** Bundles this file made, deleted at the end whatever happened. */
const made = new Set<string>();
afterAll(async () => {
  for (const name of made) await http("DELETE", `/v1/admin/bundles/${name}`, ADMIN);
});

function unique(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

async function putBundle(name: string, body: Record<string, unknown>): Promise<Answer> {
  made.add(name);
  return http("PUT", `/v1/admin/bundles/${name}`, ADMIN, body);
}

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

const names = (answer: Answer) => (answer.body.result.tools as { name: string }[]).map((t) => t.name);

describe("the admin API", () => {
  it("creates, shows, lists, replaces and deletes a bundle", async () => {
    const name = unique("crud");
    const created = await putBundle(name, { description: "maths", tools: ["math.evaluate"], prefixes: ["text."] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name,
      description: "maths",
      tools: ["math.evaluate"],
      prefixes: ["text."],
      channels: [],
      discovery: "list",
    });
    expect((await http("GET", `/v1/admin/bundles/${name}`, ADMIN)).body).toEqual(created.body);
    const listed = await http("GET", "/v1/admin/bundles", ADMIN);
    expect(listed.body.bundles.map((b: { name: string }) => b.name)).toContain(name);

    const replaced = await putBundle(name, { channels: ["std"] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name, description: null, tools: [], prefixes: [], channels: ["std"] });

    expect(await http("DELETE", `/v1/admin/bundles/${name}`, ADMIN)).toMatchObject({
      status: 200,
      body: { name, deleted: true },
    });
    const gone = await http("GET", `/v1/admin/bundles/${name}`, ADMIN);
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: "not_found", details: { bundle: name } });
    expect((await http("DELETE", `/v1/admin/bundles/${name}`, ADMIN)).status).toBe(404);
  });

  it.each([
    ["Bad_Name", { tools: ["math.evaluate"] }, "name"],
    ["x".repeat(65), { tools: ["math.evaluate"] }, "name"],
    ["ok", {}, "tools"],
    ["ok", { tools: "math.evaluate" }, "tools"],
    ["ok", { prefixes: [""] }, "prefixes"],
    ["ok", { channels: ["a b"] }, "channels"],
    ["ok", { tools: Array.from({ length: 201 }, (_, i) => `t${i}`) }, "tools"],
    ["ok", { tools: ["x".repeat(129)] }, "tools"],
    ["ok", { tools: ["math.evaluate"], description: 7 }, "description"],
    ["ok", { tools: ["math.evaluate"], tags: ["Maths"] }, "tags"],
    ["ok", { tools: ["math.evaluate"], name: "other" }, "name"],
    ["ok", { tools: ["math.evaluate"], discovery: "semantic" }, "discovery"],
    ["ok", { tools: ["math.evaluate"], discovery: true }, "discovery"],
  ])("refuses %s %j as invalid_request naming %s", async (name, body, field) => {
    const res = await http("PUT", `/v1/admin/bundles/${name}`, ADMIN, body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field } });
  });

  it("is for operators only", async () => {
    const key = await mintKey(env, unique("bundles-agent"), { role: "tenant_admin" });
    for (const [method, path, body] of [
      ["GET", "/v1/admin/bundles", undefined],
      ["PUT", `/v1/admin/bundles/${unique("nope")}`, { tools: ["math.evaluate"] }],
    ] as const) {
      const res = await http(method, path, key, body);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe("forbidden");
    }
  });
});

describe("/mcp/{bundle}", () => {
  it("lists the intersection of the bundle and what the caller may see, on both eras", async () => {
    const name = unique("list");
    expect((await putBundle(name, { tools: ["math.evaluate", "lab.echo"], prefixes: ["text."] })).status).toBe(201);
    const key = await mintKey(env, unique("bundles-list"), { channels: ["std", "community"] });
    const all = names(await modern("/mcp", key, "tools/list"));
    const expected = all.filter((t) => t === "math.evaluate" || t.startsWith("text.")).sort();
    expect(expected).toContain("math.evaluate");
    expect(all.length).toBeGreaterThan(expected.length);
    for (const answer of [
      await modern(`/mcp/${name}`, key, "tools/list"),
      await legacy(`/mcp/${name}`, key, "tools/list"),
    ]) {
      expect(answer.status).toBe(200);
      // lab.echo is in the bundle, not in the key's channels: the key never sees it.
      expect(names(answer).sort()).toEqual(expected);
    }
  });

  it("selects by channel: the tools its providers offer", async () => {
    const name = unique("channel");
    expect((await putBundle(name, { channels: ["lab"] })).status).toBe(201);
    const key = await mintKey(env, unique("bundles-channel"));
    const listed = names(await modern(`/mcp/${name}`, key, "tools/list"));
    expect(listed).toContain("lab.echo");
    expect(listed).not.toContain("math.evaluate");
  });

  it("selects by tag: the tools the caller may see whose manifests carry one of them", async () => {
    const name = unique("tag");
    expect((await putBundle(name, { tags: ["maths", "demo"] })).body.tags).toEqual(["demo", "maths"]);
    const key = await mintKey(env, unique("bundles-tag"), { channels: ["std", "community"] });
    const seen = (await http("GET", "/v1/tools", key)).body.tools as { name: string; tags: string[] }[];
    const tagged = seen.filter((t) => t.tags.some((tag) => ["maths", "demo"].includes(tag))).map((t) => t.name);
    expect(tagged.sort()).toEqual(["demo.countdown", "math.evaluate"]);
    for (const answer of [
      await modern(`/mcp/${name}`, key, "tools/list"),
      await legacy(`/mcp/${name}`, key, "tools/list"),
    ])
      expect(names(answer).sort()).toEqual(tagged);
    // lab.echo is tagged "demo" and only lab offers it: outside this key's channels, so out; a key of every channel has it.
    const everyChannel = await mintKey(env, unique("bundles-tag"));
    expect(names(await modern(`/mcp/${name}`, everyChannel, "tools/list")).sort()).toEqual(
      [...tagged, "lab.echo"].sort(),
    );
  });

  it("calls a tool of the bundle and refuses one outside it exactly as an unknown tool, on both eras", async () => {
    const name = unique("call");
    expect((await putBundle(name, { tools: ["math.evaluate"] })).status).toBe(201);
    const key = await mintKey(env, unique("bundles-call"));
    const path = `/mcp/${name}`;
    const inside = await modern(path, key, "tools/call", {
      name: "math.evaluate",
      arguments: { expression: "2 + 3" },
      _meta: ROOMY,
    });
    expect(inside.status).toBe(200);
    expect(inside.body.result.isError).toBeFalsy();

    for (const call of [
      (tool: string) => modern(path, key, "tools/call", { name: tool, arguments: {}, _meta: ROOMY }),
      (tool: string) => legacy(path, key, "tools/call", { name: tool, arguments: {}, _meta: ROOMY }),
    ]) {
      const outside = await call("json.query");
      const unknown = await call("no.such.tool");
      expect(outside.status).toBe(unknown.status);
      expect(outside.body.error.code).toBe(-32602);
      expect(outside.body.error.code).toBe(unknown.body.error.code);
      expect(outside.body.error.data.error).toEqual({
        ...unknown.body.error.data.error,
        message: "no tool named json.query",
        details: { tool: "json.query" },
      });
    }
    // The same tool on /mcp is there: the bundle, not the registry, refused it.
    const plain = await modern("/mcp", key, "tools/call", {
      name: "json.query",
      arguments: { document: { a: 1 }, path: "/a" },
      _meta: ROOMY,
    });
    expect(plain.body.result.isError).toBeFalsy();
  });

  it("answers an unknown bundle with 404 and a JSON-RPC error, after the credential", async () => {
    const key = await mintKey(env, unique("bundles-404"));
    const missing = unique("missing");
    const res = await modern(`/mcp/${missing}`, key, "tools/list");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32004, data: { error: { code: "not_found", details: { bundle: missing } } } },
    });
    // "constructor" is a valid name and no bundle: not a property every object has.
    expect((await modern("/mcp/constructor", key, "tools/list")).status).toBe(404);

    const anonymous = await http("POST", `/mcp/${missing}`, undefined, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(anonymous.status).toBe(401);
    // The bundle's path is part of the /mcp resource: the same metadata.
    expect(anonymous.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"',
    );
  });

  it("stops serving a bundle once it is deleted", async () => {
    const name = unique("gone");
    expect((await putBundle(name, { tools: ["math.evaluate"] })).status).toBe(201);
    const key = await mintKey(env, unique("bundles-gone"));
    expect((await modern(`/mcp/${name}`, key, "tools/list")).status).toBe(200);
    expect((await http("DELETE", `/v1/admin/bundles/${name}`, ADMIN)).status).toBe(200);
    made.delete(name);
    expect((await modern(`/mcp/${name}`, key, "tools/list")).status).toBe(404);
  });
});

describe("a key limited to bundles", () => {
  it("sees only its bundles' tools over MCP: /mcp their union, /mcp/{name} one of them, any other bundle 404", async () => {
    const [maths, text, other] = [unique("kmaths"), unique("ktext"), unique("kother")];
    expect((await putBundle(maths, { tools: ["math.evaluate"] })).status).toBe(201);
    expect((await putBundle(text, { prefixes: ["text."] })).status).toBe(201);
    expect((await putBundle(other, { tools: ["json.query"] })).status).toBe(201);
    const key = await mintKey(env, unique("bundles-key"), { bundles: [text, maths] });
    const unlimited = await mintKey(env, unique("bundles-key"));
    const everything = names(await modern("/mcp", unlimited, "tools/list"));
    const union = everything.filter((t) => t === "math.evaluate" || t.startsWith("text.")).sort();
    expect(union.length).toBeGreaterThan(1);

    expect(names(await modern("/mcp", key, "tools/list")).sort()).toEqual(union);
    expect(names(await legacy("/mcp", key, "tools/list")).sort()).toEqual(union);
    expect(names(await modern(`/mcp/${maths}`, key, "tools/list"))).toEqual(["math.evaluate"]);
    const elsewhere = await modern(`/mcp/${other}`, key, "tools/list");
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body.error.data.error).toMatchObject({ code: "not_found", details: { bundle: other } });

    const refused = await modern("/mcp", key, "tools/call", {
      name: "json.query",
      arguments: { document: {}, path: "" },
      _meta: ROOMY,
    });
    expect(refused.body.error.code).toBe(-32602);
    expect(refused.body.error.data.error).toMatchObject({ code: "tool_not_found", details: { tool: "json.query" } });
    // Not a permission: REST calls what the key's channels and capabilities allow.
    const rest = await http("POST", "/v1/executions", key, {
      tool: "json.query",
      input: { document: { a: 1 }, path: "/a" },
      limits: { timeout_ms: 20_000 },
    });
    expect(rest.status).toBe(200);
    expect(rest.body.output).toEqual({ found: true, value: 1 });

    // Its bundles deleted, the key lists nothing over MCP.
    for (const name of [maths, text]) {
      expect((await http("DELETE", `/v1/admin/bundles/${name}`, ADMIN)).status).toBe(200);
      made.delete(name);
    }
    expect(names(await modern("/mcp", key, "tools/list"))).toEqual([]);
  });

  it("is minted only with existing bundles, named correctly", async () => {
    const name = unique("kmint");
    expect((await putBundle(name, { tools: ["math.evaluate"] })).status).toBe(201);
    for (const bundles of [[unique("nope")], [], "x", ["Bad"], Array.from({ length: 9 }, (_, i) => `b${i}`)]) {
      const res = await http("POST", "/v1/admin/keys", ADMIN, {
        tenant: unique("bundles-mint"),
        agent: "a",
        bundles,
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field: "bundles" } });
    }
    const res = await http("POST", "/v1/admin/keys", ADMIN, {
      tenant: unique("bundles-mint"),
      agent: "a",
      bundles: [name, name],
    });
    expect(res.status).toBe(201);
    expect(res.body.bundles).toEqual([name]);
  });
});
