/** The SDK lane of `/mcp` (handler.ts, step 7): everything the direct lane does not answer. */
import { createMcpHandler, type CallToolResult } from "@modelcontextprotocol/server";
import type { McpScope } from "./scope.ts";
import { createServer } from "./server.ts";

/**
 * The SDK lane: `createMcpHandler` with a server built for this caller (server.ts). Both are
 * built per request: the SDK serves each exchange on a server instance of its own, and a
 * handler's listen router and event bus would otherwise be shared by every caller of the isolate.
 */
export async function throughSdk(
  scope: McpScope,
  request: Request,
  text: string,
  body: unknown,
  maxBytes: number,
  settled: CallToolResult | undefined,
): Promise<Response> {
  const mcp = createMcpHandler((ctx) => createServer(scope, ctx.era, settled), {
    maxRequestBodySize: maxBytes,
    onerror: (error) => console.warn(JSON.stringify({ msg: "mcp", error: error.message })),
  });
  // The body was read here; the SDK gets it parsed, and a copy of the bytes for its own checks.
  const forwarded = new Request(request.url, {
    method: "POST",
    headers: request.headers,
    body: text,
    signal: request.signal,
  });
  return mcp.fetch(forwarded, body === undefined ? undefined : { parsedBody: body });
}
