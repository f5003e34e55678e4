/**
 * Which requests the MCP face's direct lane takes (src/mcp/direct-route.ts), judged against the
 * SDK itself: each request goes to `createMcpHandler` with a bare server whose handlers record
 * what they were handed. A request the lane takes must be one the SDK hands to its handler,
 * with the same name, arguments and `_meta`, and answers with plain JSON; a request the SDK
 * refuses (its validation ladder), and one it would answer as a stream, the lane must leave to it.
 */
import { createMcpHandler, Server } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { directRoute } from "../../../src/mcp/direct-route.ts";

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface Case {
  headers: Record<string, string>;
  body: unknown;
}

/** A well-formed 2026-07-28 request, changed by `change`. */
function request(method: string, params: Record<string, unknown> = {}, change: Partial<Case> = {}): Case {
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown>; name?: string };
  return {
    headers: {
      "content-type": "application/json",
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(typeof rest.name === "string" ? { "mcp-name": rest.name } : {}),
      ...change.headers,
    },
    // As it arrives: parsed from JSON text.
    body:
      change.body ??
      JSON.parse(
        JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...rest, _meta: { ...ENVELOPE, ..._meta } } }),
      ),
  };
}

const call = (params: Record<string, unknown> = {}, change: Partial<Case> = {}) =>
  request("tools/call", { name: "lab.echo", arguments: { a: 1 }, ...params }, change);

/** What the SDK does with the request: its answer's status and type, and what its handler was handed (if it ran). */
async function throughSdk(c: Case) {
  let handed: Record<string, unknown> | undefined;
  const mcp = createMcpHandler(() => {
    const server = new Server({ name: "probe", version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler("tools/call", async (req, ctx) => {
      handed = { name: req.params.name, arguments: req.params.arguments, meta: ctx.mcpReq._meta };
      return { content: [] };
    });
    server.setRequestHandler("tools/list", async (_req, ctx) => {
      handed = { meta: ctx.mcpReq._meta };
      return { tools: [] };
    });
    return server;
  });
  const text = JSON.stringify(c.body);
  const res = await mcp.fetch(
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: c.headers, body: text }),
    c.body === undefined ? undefined : { parsedBody: c.body },
  );
  await res.text();
  return { status: res.status, type: res.headers.get("content-type") ?? "", handed };
}

/** The lane takes `c`: the SDK hands its handler exactly what the lane would, and answers plain JSON. */
async function expectTaken(c: Case) {
  const route = directRoute(new Headers(c.headers), c.body);
  expect(route).toBeDefined();
  const sdk = await throughSdk(c);
  expect(sdk.status).toBe(200);
  expect(sdk.type).toMatch(/^application\/json/);
  expect(sdk.handed).toEqual(
    route!.method === "tools/call"
      ? { name: route!.call.name, arguments: route!.call.arguments, meta: route!.meta }
      : { meta: route!.meta },
  );
}

describe("the direct lane takes", () => {
  it("a plain tools/call, its `_meta` handed on without the envelope", async () => {
    await expectTaken(call());
    await expectTaken(call({ arguments: undefined }));
    await expectTaken(
      call({
        _meta: {
          "io.modelcontextprotocol/clientInfo": { name: "c", version: "1" },
          "io.tool-runtime/limits": { timeout_ms: 1000 },
          traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        },
      }),
    );
  });

  it("a tools/list, with or without a cursor", async () => {
    await expectTaken(request("tools/list"));
    await expectTaken(request("tools/list", { cursor: "abc" }));
  });

  it("what the SDK reads the same though written otherwise: a string id, a charset, spaces around Mcp-Name", async () => {
    await expectTaken(
      call(
        {},
        { body: { jsonrpc: "2.0", id: "x-1", method: "tools/call", params: { name: "lab.echo", _meta: ENVELOPE } } },
      ),
    );
    await expectTaken(call({}, { headers: { "content-type": "application/json; charset=utf-8" } }));
    await expectTaken(call({}, { headers: { "mcp-name": "  lab.echo\t" } }));
  });
});

describe("the direct lane leaves to the SDK", () => {
  /** `c` is not the lane's; `refused`: the SDK answers it without running its handler (a rejection, or invalid params). */
  async function expectLeft(c: Case, refused: boolean) {
    expect(directRoute(new Headers(c.headers), c.body)).toBeUndefined();
    const sdk = await throughSdk(c);
    if (refused) expect(sdk.handed).toBeUndefined();
    else expect(sdk.status).toBeLessThan(500);
  }

  it("what the SDK refuses: a wrong Content-Type, missing or disagreeing headers", async () => {
    await expectLeft(call({}, { headers: { "content-type": "text/plain" } }), true);
    for (const header of ["mcp-protocol-version", "mcp-method", "mcp-name"]) {
      const c = call();
      delete c.headers[header];
      await expectLeft(c, true);
    }
    await expectLeft(call({}, { headers: { "mcp-name": "lab.other" } }), true);
    await expectLeft(call({}, { headers: { "mcp-method": "tools/list" } }), true);
    await expectLeft(call({}, { headers: { "mcp-protocol-version": "2025-11-25" } }), true);
  });

  it("what the SDK refuses in the body: no JSON-RPC request, a bad envelope, bad params, an unknown revision", async () => {
    const valid = call().body as Record<string, unknown>;
    for (const body of [
      { ...valid, jsonrpc: "1.0" },
      { ...valid, id: null },
      { ...valid, id: 1.5 },
      { ...valid, extra: true },
      [valid],
      [],
      "tools/call",
    ])
      await expectLeft(call({}, { body }), true);
    await expectLeft(call({ _meta: { "io.modelcontextprotocol/clientCapabilities": undefined } }), true);
    await expectLeft(
      call(
        { _meta: { "io.modelcontextprotocol/protocolVersion": "2027-01-01" } },
        { headers: { "mcp-protocol-version": "2027-01-01" } },
      ),
      true,
    );
    await expectLeft(call({ arguments: [1, 2] }), true);
    await expectLeft(call({ arguments: null }), true);
    await expectLeft(call({ name: 42 }, { headers: { "mcp-name": "42" } }), true);
    await expectLeft(request("tools/list", { cursor: 3 }), true);
  });

  it("notifications, 2025 requests and other methods", async () => {
    await expectLeft(
      { headers: call().headers, body: { jsonrpc: "2.0", method: "tools/call", params: { _meta: ENVELOPE } } },
      false,
    );
    await expectLeft(
      {
        headers: { "content-type": "application/json" },
        body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "lab.echo" } },
      },
      false,
    );
    await expectLeft(request("server/discover"), false);
    await expectLeft(request("ping"), false);
  });

  it("what may be answered as a stream, or that the SDK reads otherwise than as it is written", async () => {
    await expectLeft(call({ _meta: { progressToken: "p1" } }), false);
    await expectLeft(call({ _meta: { "io.modelcontextprotocol/logLevel": "info" } }), false);
    await expectLeft(call({ task: { ttl: 1000 } }), false);
    await expectLeft(call({ requestState: "s" }), false);
    // Base64-encoded Mcp-Name (the SDK decodes it), and arguments whose own __proto__ its parse drops.
    await expectLeft(call({}, { headers: { "mcp-name": `=?base64?${btoa("lab.echo")}?=` } }), false);
    await expectLeft(call({ arguments: JSON.parse('{"__proto__": {"x": 1}}') }), false);
  });
});
