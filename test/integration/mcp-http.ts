/**
 * Requests to the Worker as an HTTP client would send them, for the MCP and bundle files
 * (bundles, tenant bundles, discovery): the answer's body read as MCP answers it (JSON, or the
 * last event of a stream), and a 2025-11-25 session's handshake before one request.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { mcpBody } from "./worker-http.ts";

export const MODERN = "2026-07-28";
export const MCP_HEADERS = { accept: "application/json, text/event-stream" };

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** `method path` as `key` (none: no authorization header), a JSON body when given, and `headers`. */
export async function http(
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await exports.default.fetch(`http://localhost${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await mcpBody(res) };
}

/** A 2025-11-25 session at `path`: `initialize`, `notifications/initialized`, then one request. */
export async function legacy(path: string, key: string, method: string, params: Record<string, unknown> = {}) {
  const init = await http(
    "POST",
    path,
    key,
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "workerd", version: "1" } },
    },
    MCP_HEADERS,
  );
  expect(init.status).toBe(200);
  const headers = {
    ...MCP_HEADERS,
    "mcp-protocol-version": "2025-11-25",
    "mcp-session-id": init.headers.get("mcp-session-id")!,
  };
  await http("POST", path, key, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return http("POST", path, key, { jsonrpc: "2.0", id: 1, method, params }, headers);
}
