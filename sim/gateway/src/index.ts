/**
 * Simulation-only Worker (not part of the product). A simulated isolate runs the edge's real
 * policy code in Node (sim/isolate.ts); every call that code makes on a Durable Object stub
 * arrives here as `POST /sim/rpc {binding, name, method, args}` and is made on the real
 * object, so the object sees exactly the RPC calls an edge would make, one request each.
 * Anything else is passed to the runtime Worker (its /readyz, its cost meter).
 */

interface Env {
  REGISTRY: DurableObjectNamespace;
  TENANTS: DurableObjectNamespace;
  RUNTIME: Fetcher;
}

/** The RPC surface the simulation may use, per binding: what an edge calls, nothing more. */
const ALLOWED: Record<string, readonly string[]> = {
  REGISTRY: ["snapshot", "report", "acquireTrial"],
  TENANTS: ["admit", "release"],
};

interface RpcRequest {
  binding: string;
  name: string;
  method: string;
  args: unknown[];
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== "/sim/rpc") return env.RUNTIME.fetch(request);
    if (request.method !== "POST") return new Response("POST only", { status: 405 });
    const call = (await request.json()) as RpcRequest;
    if (!ALLOWED[call.binding]?.includes(call.method) || !Array.isArray(call.args)) {
      return Response.json({ ok: false, error: `not allowed: ${call.binding}.${call.method}` }, { status: 400 });
    }
    const namespace = env[call.binding as "REGISTRY" | "TENANTS"];
    const stub = namespace.get(namespace.idFromName(call.name)) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    try {
      return Response.json({ ok: true, value: await stub[call.method](...call.args) });
    } catch (err) {
      return Response.json({ ok: false, error: String(err) }, { status: 502 });
    }
  },
} satisfies ExportedHandler<Env>;
