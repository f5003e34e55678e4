/**
 * What the MCP face's direct lane (src/mcp/direct.ts) writes, in workerd, beside what the SDK
 * writes for the same request and the same handler outcome — a result of each shape call.ts
 * builds, a refusal, a crash, a list: byte for byte, status and headers too. Whole requests
 * through both lanes: mcp-direct-lanes.test.ts.
 */
import { createMcpHandler, ProtocolError, type CallToolResult } from "@modelcontextprotocol/server";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Bundle } from "../../src/registry/bundles.ts";
import { answerCall, answerList } from "../../src/mcp/direct.ts";
import { directRoute } from "../../src/mcp/direct-route.ts";
import { discoveryTools } from "../../src/mcp/discovery.ts";
import { callToolResult } from "../../src/mcp/results.ts";
import type { McpScope } from "../../src/mcp/scope.ts";
import { createServer, listCacheHint } from "../../src/mcp/server.ts";

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "workerd", version: "1" },
};
/** A roomy budget: the first call of a file also loads the Worker (vitest.config.ts). */
const ROOMY = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };

/** A 2026-07-28 request as a client sends it: headers, and the body's text. */
function modern(method: string, params: Record<string, unknown> = {}, id: string | number = 1) {
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown>; name?: string };
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
    ...(typeof rest.name === "string" ? { "mcp-name": rest.name } : {}),
  };
  return {
    headers,
    text: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...rest, _meta: { ...ENVELOPE, ..._meta } } }),
  };
}

interface Written {
  status: number;
  headers: Record<string, string>;
  text: string;
}

async function written(res: Response): Promise<Written> {
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  return { status: res.status, headers, text: await res.text() };
}

describe("what the direct lane writes", () => {
  const search: Bundle = {
    name: "probe",
    description: "Probe tools.",
    tools: [],
    prefixes: ["lab."],
    channels: [],
    tags: [],
    discovery: "search",
    updated_at: "2026-01-01T00:00:00.000Z",
  };
  // A search bundle lists two fixed tools, so both lanes list the same without the registry.
  const scope: McpScope = {
    env,
    caller: { tenant: "probe", agent: "probe", capabilities: [], channels: ["*"] },
    acceptedAt: 0,
    trace: { trace_id: "0".repeat(32), span_id: "0".repeat(16), flags: "01" },
    waitUntil: () => {},
    bundles: [search],
  };

  /** The SDK lane's answer: the runtime's own server (server.ts), its tools/call handler doing `outcome`. */
  async function bySdk(request: { headers: Record<string, string>; text: string }, outcome: () => Promise<unknown>) {
    const mcp = createMcpHandler((ctx) => {
      const server = createServer(scope, ctx.era);
      server.setRequestHandler("tools/call", async () => (await outcome()) as never);
      return server;
    });
    const req = new Request("http://localhost/mcp", { method: "POST", headers: request.headers, body: request.text });
    return written(await mcp.fetch(req, { parsedBody: JSON.parse(request.text) }));
  }

  /** The direct lane's answer to the same request and outcome. */
  async function direct(request: { headers: Record<string, string>; text: string }, outcome: () => Promise<unknown>) {
    const route = directRoute(new Headers(request.headers), JSON.parse(request.text));
    expect(route).toBeDefined();
    const answer =
      route!.method === "tools/list"
        ? await answerList(route!.id, async () => discoveryTools(scope, "modern"), listCacheHint(env))
        : await answerCall(route!.id, async () => (await outcome()) as CallToolResult);
    expect(answer).toHaveProperty("response");
    return written((answer as { response: Response }).response);
  }

  const call = modern("tools/call", { name: "lab.echo", arguments: { a: 1 } }, "req-1");
  const outcomes: [string, () => Promise<unknown>][] = [
    [
      "an object output",
      async () => callToolResult({ execution_id: "e1", status: "succeeded", output: { a: [1, "b"] } }),
    ],
    ["a number output", async () => callToolResult({ execution_id: "e1", status: "succeeded", output: 42 })],
    ["no output", async () => callToolResult({ execution_id: "e1", status: "succeeded" })],
    [
      "a text block output",
      async () =>
        callToolResult({
          execution_id: "e1",
          status: "succeeded",
          output: { content: [{ type: "text", text: "hi" }] },
        }),
    ],
    [
      "a failure",
      async () =>
        callToolResult({
          execution_id: "e1",
          status: "failed",
          error: { code: "tool_error", message: "no", type: "execution_error", retryable: false },
          partial_output: { n: 1 },
        }),
    ],
    [
      "a refusal",
      async () => {
        throw new ProtocolError(-32602, "no tool named x", {
          error: { code: "tool_not_found", message: "no tool named x" },
        });
      },
    ],
    ["a refusal without data", async () => Promise.reject(new ProtocolError(-32029, "slow down"))],
    ["a crash", async () => Promise.reject(new Error("boom"))],
    ["a crash without a message", async () => Promise.reject(new Error())],
  ];

  it.each(outcomes)("a tools/call ending in %s: byte for byte the SDK's", async (_, outcome) => {
    expect(await direct(call, outcome)).toEqual(await bySdk(call, outcome));
  });

  it("a numeric id, and a call without arguments, as the SDK writes them", async () => {
    const bare = modern("tools/call", { name: "lab.echo" }, 9);
    expect(await direct(bare, outcomes[0][1])).toEqual(await bySdk(bare, outcomes[0][1]));
  });

  it("a tools/list: byte for byte the SDK's, the cache fields from the server's hint", async () => {
    const list = modern("tools/list");
    const mine = await direct(list, async () => undefined);
    expect(mine).toEqual(await bySdk(list, async () => undefined));
    expect(JSON.parse(mine.text).result).toMatchObject({
      ttlMs: Number(env.REGISTRY_SNAPSHOT_TTL_MS),
      cacheScope: "private",
    });
  });

  it("leaves the writing of content blocks it cannot check to the SDK, already run", async () => {
    const image = callToolResult({
      execution_id: "e1",
      status: "succeeded",
      output: { content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] },
    });
    expect(await answerCall(1, async () => image)).toEqual({ settled: image });
    const annotated = { ...image, content: [{ type: "text" as const, text: "x", annotations: { priority: 1 } }] };
    expect(await answerCall(1, async () => annotated)).toEqual({ settled: annotated });
  });
});
