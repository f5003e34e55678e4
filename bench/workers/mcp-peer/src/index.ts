/**
 * Bench-only Worker (not part of the product): the peer an agent developer would otherwise
 * reach for on Workers, an MCP server built with Cloudflare's `agents` package and the MCP SDK
 * v2, serving one tool `echo` over Streamable HTTP at POST /mcp.
 *
 * Stateless on purpose. `createMcpHandler` (agents/mcp/server) takes a server *factory* and
 * builds a fresh McpServer for every HTTP request: no session, no Durable Object, no
 * WebSocket. That is the fair comparison for the runtime's sync call, which also keeps no
 * session between calls. A sessionful MCP server (McpAgent) would add a Durable Object hop to
 * every call and measure that hop rather than MCP itself.
 *
 * The same endpoint answers both protocol eras: 2026-07-28 clients (per-request `_meta`
 * envelope, no handshake) and 2025-era clients (initialize once, then one POST per call; the
 * handler's default `legacy: "stateless"` lane serves each POST from a fresh server too).
 */
import { McpServer } from "@modelcontextprotocol/server";
// Picked explicitly: the SDK's default validator is chosen by export condition (AJV on Node,
// which compiles schemas with `new Function`; @cfworker/json-schema on workerd). Naming the
// code-generation-free one keeps the Worker safe under Workers' no-eval rule whatever the
// bundler resolves. (On the server it only validates elicitation replies; tool input is
// validated by the zod schema below, and zod 4 turns its JIT off on Workers.)
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/server/validators/cf-worker";
import { createMcpHandler } from "agents/mcp/server";
import { z } from "zod";

const jsonSchemaValidator = new CfWorkerJsonSchemaValidator();

/** Called once per request by the handler; must return a new instance each time. */
function createServer(): McpServer {
  const server = new McpServer({ name: "tool-bench-mcp-peer", version: "1.0.0" }, { jsonSchemaValidator });
  server.registerTool(
    "echo",
    {
      description: "Returns its input object unchanged.",
      // Any object: unknown keys pass through instead of being stripped.
      inputSchema: z.looseObject({}),
    },
    async (input) => ({
      content: [{ type: "text", text: JSON.stringify(input) }],
      structuredContent: input,
    }),
  );
  return server;
}

// Created once per isolate; the handler serves only `/mcp` (404 elsewhere) and checks
// Host/Origin against localhost and workers.dev by default.
const handler = createMcpHandler(createServer);

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> {
    return handler(request, env, ctx);
  },
};
