/**
 * The server factory `createMcpHandler` calls once per HTTP request (both protocol eras):
 * a fresh `McpServer` with the tools registered. It reads the mutable tool's current
 * definition first, so a change made through the admin endpoint shows in the next
 * `tools/list` and the next call.
 */
import { McpServer } from "@modelcontextprotocol/server";
import { type Env, stateOf } from "./env.ts";
import { MUTABLE_TOOL, registerTools, validator } from "./tools.ts";

export const SERVER_INFO = { name: "mcp-upstream-example", version: "1.0.0" };

export async function createUpstreamServer(env: Env): Promise<McpServer> {
  const mutable = await stateOf(env).definition(MUTABLE_TOOL);
  const server = new McpServer(SERVER_INFO, {
    jsonSchemaValidator: validator,
    capabilities: { tools: { listChanged: true }, logging: {} },
    // MCP 2026-07-28 caching: the list is the same for every caller, and may change at any
    // time (the mutable tool), so callers may share it but must not keep it.
    cacheHints: { "tools/list": { ttlMs: 0, cacheScope: "public" } },
    instructions: "A test upstream: echo, slow_count, always_fails, whoami and mutable_echo.",
  });
  registerTools(server, env, mutable);
  return server;
}
