/**
 * Entry of the example upstream MCP server Worker (docs/contract.md#upstreams): routes only.
 *
 *   POST /mcp      MCP over Streamable HTTP, stateless: 2026-07-28 clients (no handshake,
 *                  one self-describing POST per request) and 2025 clients (initialize, then
 *                  one POST per request); GET and DELETE answer 405
 *   /admin/*       test controls (see admin.ts), only with ADMIN_SECRET set
 *   GET /healthz   200 when the Worker runs
 */
import {
  type McpHttpHandler,
  createMcpHandler,
  localhostAllowedOrigins,
  originValidationResponse,
} from "@modelcontextprotocol/server";
import { handleAdmin } from "./admin.ts";
import { tokenGate } from "./auth.ts";
import { type Env, listSetting } from "./env.ts";
import { createUpstreamServer } from "./server.ts";

export { UpstreamState } from "./state.ts";

// One handler per isolate: it holds the isolate's subscriptions/listen streams and their
// event bus. Its factory builds a fresh server for every request.
let handler: McpHttpHandler | undefined;

async function serveMcp(request: Request, env: Env): Promise<Response> {
  // MCP Streamable HTTP, Security: an Origin that is present and not ours is refused with
  // 403 (DNS rebinding). Server-to-server calls carry no Origin.
  const refused = originValidationResponse(request, [
    ...localhostAllowedOrigins(),
    ...listSetting(env.ALLOWED_ORIGINS),
  ]);
  if (refused) return refused;

  const tokens = listSetting(env.UPSTREAM_TOKENS);
  const auth = tokens.length > 0 ? await tokenGate(tokens)(request) : undefined;
  if (auth instanceof Response) return auth;

  handler ??= createMcpHandler(() => createUpstreamServer(env), {
    onerror: (error) => console.warn(`mcp: ${error.message}`),
  });
  return handler.fetch(request, auth === undefined ? undefined : { authInfo: auth });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const { pathname } = new URL(request.url);
    try {
      if (pathname === "/mcp") return await serveMcp(request, env);
      if (pathname.startsWith("/admin/")) return await handleAdmin(request, env, () => handler?.notify.toolsChanged());
      if (pathname === "/healthz") return new Response("ok");
      return Response.json({ error: "not found" }, { status: 404 });
    } catch (error) {
      console.error("upstream: unhandled error", error);
      return Response.json({ error: "internal error" }, { status: 500 });
    }
  },
} satisfies ExportedHandler<Env>;
