/**
 * An example caller Worker: it reaches the Tool Runtime over a service binding with Workers
 * RPC. Its identity (tenant, agent, capabilities) is in the binding's `props` in its
 * wrangler.jsonc; nothing it passes in a call can change it.
 *
 *   GET /             calls math.evaluate and answers with the runtime's result
 *   GET /forged       tries to claim another tenant in the call's arguments (ignored)
 *   GET /stream       streams demo.countdown's events through
 *   GET /tools        lists the tools (?as=community: as a caller whose channels reach only the community provider)
 *   GET /call?tool=…&input=…&options=…   any call (input and options as JSON), for comparing with
 *                     REST (&as=community: as the community-only caller); it runs any tool as this Worker, so it needs `Authorization: Bearer
 *                     <CALLER_TOKEN>` (examples/caller/.dev.vars): a web page cannot drive it
 *   GET /get?id=…     reads an execution this caller started
 */
import type { RpcCallOptions, RpcResult, ToolRuntime } from "../../../src/rpc.ts";

interface Env {
  TOOLS: Service<ToolRuntime>;
  TOOLS_COMMUNITY: Service<ToolRuntime>;
  /** The bearer token GET /call needs; without it, /call refuses everyone. */
  CALLER_TOKEN?: string;
}

/** The request's bearer token equals CALLER_TOKEN, compared by digest in constant time. */
async function holdsCallerToken(request: Request, env: Env): Promise<boolean> {
  const presented = /^Bearer (\S+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!env.CALLER_TOKEN || !presented) return false;
  const digest = (s: string) => crypto.subtle.digest("SHA-256", new TextEncoder().encode(s));
  return crypto.subtle.timingSafeEqual(await digest(presented), await digest(env.CALLER_TOKEN));
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const answer = (r: RpcResult<unknown>) => Response.json(r, { status: r.ok ? 200 : 400 });
    switch (url.pathname) {
      case "/":
        return answer(
          await env.TOOLS.invoke("math.evaluate", { expression: url.searchParams.get("expression") ?? "6 * 7" }),
        );
      case "/forged": {
        // A caller that tries to be someone else: extra fields are refused like in REST, and
        // there is no argument that carries an identity at all.
        const forged = {
          tenant: "someone-else",
          context: { agent: "admin", tenant: "someone-else" },
        } as RpcCallOptions;
        return answer(await env.TOOLS.invoke("math.evaluate", { expression: "1 + 1" }, { context: forged.context }));
      }
      case "/stream": {
        const r = await env.TOOLS.invokeStream("demo.countdown", { from: 3, interval_ms: 50 });
        if (!r.ok) return answer(r);
        return new Response(r.value.stream, {
          headers: { "content-type": "text/event-stream", "x-execution-id": r.value.execution_id },
        });
      }
      case "/tools":
        return answer(await (url.searchParams.get("as") === "community" ? env.TOOLS_COMMUNITY : env.TOOLS).listTools());
      case "/call": {
        if (!(await holdsCallerToken(request, env)))
          return Response.json(
            { error: "GET /call needs Authorization: Bearer <CALLER_TOKEN> (examples/caller/.dev.vars)" },
            { status: 401, headers: { "WWW-Authenticate": "Bearer" } },
          );
        const json = (name: string, fallback: unknown) =>
          url.searchParams.has(name) ? JSON.parse(url.searchParams.get(name)!) : fallback;
        const tools = url.searchParams.get("as") === "community" ? env.TOOLS_COMMUNITY : env.TOOLS;
        // No `input` parameter: no input, which the runtime takes as `{}` when the tool's schema does.
        return answer(
          await tools.invoke(url.searchParams.get("tool") ?? "", json("input", undefined), json("options", {})),
        );
      }
      case "/get":
        return answer(await env.TOOLS.getExecution(url.searchParams.get("id") ?? ""));
      default:
        return new Response("GET /, /forged, /stream, /tools, /call or /get", { status: 404 });
    }
  },
};
