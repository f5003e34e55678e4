/**
 * Simulation-only Worker (not part of the product). A simulated isolate runs the edge's real
 * policy code in Node (sim/isolate-group.ts); every call that code makes on a Durable Object stub
 * arrives here as `POST /sim/rpc {binding, name, method, args}` and is made on the real
 * object, so the object sees exactly the RPC calls an edge would make, one request each.
 * `/sim/cache` is the data center's Cache API for the simulated isolates (sim/remote-cache.ts):
 * one gateway, one data center. Anything else is passed to the runtime Worker (its /readyz,
 * its cost meter).
 */

interface Env {
  REGISTRY: DurableObjectNamespace;
  TENANTS: DurableObjectNamespace;
  HEALTH: DurableObjectNamespace;
  SNAPSHOT_RELAY: DurableObjectNamespace;
  RUNTIME: Fetcher;
}

/** The RPC surface the simulation may use, per binding: what an edge calls, nothing more. */
const ALLOWED: Record<string, readonly string[]> = {
  // report and acquireTrial: the edge before its per-provider health view (sim/edges/before.ts); resetHealth: the harness, between cells.
  REGISTRY: ["snapshot", "report", "acquireTrial", "resetHealth"],
  TENANTS: ["admit", "release", "lease"],
  HEALTH: ["report", "acquireTrial", "returnTrial"],
  SNAPSHOT_RELAY: ["snapshot"],
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
    if (url.pathname === "/sim/cache") return dataCenterCache(request, url);
    if (url.pathname !== "/sim/rpc") return env.RUNTIME.fetch(request);
    if (request.method !== "POST") return new Response("POST only", { status: 405 });
    const call = (await request.json()) as RpcRequest;
    if (!ALLOWED[call.binding]?.includes(call.method) || !Array.isArray(call.args)) {
      return Response.json({ ok: false, error: `not allowed: ${call.binding}.${call.method}` }, { status: 400 });
    }
    const namespace = env[call.binding as "REGISTRY" | "TENANTS" | "HEALTH" | "SNAPSHOT_RELAY"];
    const stub = namespace.get(namespace.idFromName(call.name)) as unknown as Record<
      string,
      (...args: unknown[]) => Promise<unknown>
    >;
    try {
      return Response.json({ ok: true, value: await stub[call.method](...call.args) });
    } catch (err) {
      return Response.json({ ok: false, error: String(err) }, { status: 502 });
    }
  },
} satisfies ExportedHandler<Env>;

/** GET: the entry or 404; PUT: stores it with the headers it came with (max-age decides how long). */
async function dataCenterCache(request: Request, url: URL): Promise<Response> {
  const cache = await caches.open(url.searchParams.get("name") ?? "default-sim");
  const key = url.searchParams.get("url") ?? "";
  if (request.method === "PUT") {
    await cache.put(key, new Response(await request.arrayBuffer(), { headers: request.headers }));
    return new Response(null, { status: 204 });
  }
  return (await cache.match(key)) ?? new Response("miss", { status: 404 });
}
