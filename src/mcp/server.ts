/**
 * The MCP server for one HTTP request, as `createMcpHandler` asks its factory for one: a
 * low-level `Server` (not `McpServer`) with only the methods the runtime answers. `McpServer`
 * would register every catalog tool with a validator compiled per request and validate the
 * input a second time (the runtime validates with build-time validators, stage 4; workerd
 * refuses code generation), and it turns every thrown error into `isError`, leaving no way to
 * answer a refusal as a JSON-RPC error. The SDK still does the wire: eras, envelope checks,
 * headers, `server/discover`, `ping`, `initialize`, result schemas, SSE upgrade and aborts.
 */
import { Server, type CallToolRequest, type CallToolResult } from "@modelcontextprotocol/server";
import { loadConfig } from "../config.ts";
import { callTool } from "./call.ts";
import { callInSearch, discoveryTools, searches } from "./discovery.ts";
import type { McpScope } from "./scope.ts";
import { registerLegacyTasks, registerModernTasks, TASKS_EXTENSION } from "./tasks.ts";
import { listTools } from "./tools.ts";

export const SERVER_INFO = { name: "tool-runtime", title: "Tool Runtime", version: "0.1.0" };

const INSTRUCTIONS =
  "Tools of the Tool Runtime, as this credential may call them. Call a specific version with " +
  '_meta["io.tool-runtime/version"]; make a call idempotent with _meta["io.tool-runtime/idempotency_key"]. ' +
  'Every result carries _meta["io.tool-runtime/execution_id"], readable at /v1/executions/{id}.';

/**
 * 2026-07-28 caching of `tools/list` (docs/contract.md#mcp): the list is this credential's (its
 * channels and capabilities), so `private`; fresh for one registry snapshot TTL, the time the
 * edge itself holds the copy the list came from. 2025 answers carry neither field (the SDK's codec).
 */
export function listCacheHint(env: Env): { ttlMs: number; cacheScope: "private" } {
  return { ttlMs: loadConfig(env).snapshotTtlMs, cacheScope: "private" };
}

/**
 * `settled`: the result of this request's `tools/call`, already run by the direct lane
 * (direct.ts), which leaves the writing of a result it cannot write exactly to the SDK.
 */
export function createServer(scope: McpScope, era: "modern" | "legacy", settled?: CallToolResult): Server {
  const server = new Server(SERVER_INFO, {
    instructions: INSTRUCTIONS,
    capabilities: {
      tools: { listChanged: false },
      // notifications/message for stdout, stderr and log events (sent only at the level a client asks).
      logging: {},
      // Tasks: the extension on 2026-07-28 (a `tasks` slot there is forbidden), the core capability on 2025-11-25.
      ...(era === "modern"
        ? { extensions: { [TASKS_EXTENSION]: {} } }
        : { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } }),
    },
    cacheHints: { "tools/list": listCacheHint(scope.env) },
  });
  // A bundle found by search lists search_tools and call_tool instead of its tools (discovery.ts).
  const search = searches(scope);
  server.setRequestHandler("tools/list", async () => ({
    tools: search ? discoveryTools(scope, era) : await listTools(scope, era),
  }));
  server.setRequestHandler(
    "tools/call",
    async (request: CallToolRequest, ctx) =>
      (settled ?? (await (search ? callInSearch : callTool)(scope, era, request.params, ctx))) as never,
  );
  if (era === "modern") registerModernTasks(server, scope);
  else registerLegacyTasks(server, scope);
  return server;
}
