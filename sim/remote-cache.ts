/**
 * The Cache API for simulated isolates: `caches.open(name)` whose `match` and `put` are made by
 * the simulation's gateway Worker (sim/gateway) on its own Cache API, in workerd. Every
 * simulated isolate shares it, as every isolate of one data center shares that data center's
 * cache; `onCall` sees each operation leave (as `CACHE.match`, `CACHE.put`). `delayMs` adds
 * that much to each operation (`--cache-delay-ms`): a slower cache widens the moment in which
 * isolates that found the entry stale race to refill it.
 */
import type { OnCall } from "./remote-env.ts";

const TIMEOUT_MS = 10_000;

export function remoteCaches(gateway: string, onCall: OnCall, delayMs = 0): Pick<CacheStorage, "open"> {
  const delay = () => (delayMs > 0 ? new Promise((r) => setTimeout(r, delayMs)) : undefined);
  const cache = (name: string) => ({
    async match(request: RequestInfo | URL): Promise<Response | undefined> {
      onCall("CACHE", "match");
      await delay();
      const res = await fetch(
        `${gateway}/sim/cache?name=${encodeURIComponent(name)}&url=${encodeURIComponent(urlOf(request))}`,
        { signal: AbortSignal.timeout(TIMEOUT_MS) },
      );
      return res.status === 200 ? new Response(await res.arrayBuffer(), { headers: res.headers }) : undefined;
    },
    async put(request: RequestInfo | URL, response: Response): Promise<void> {
      onCall("CACHE", "put");
      await delay();
      const res = await fetch(
        `${gateway}/sim/cache?name=${encodeURIComponent(name)}&url=${encodeURIComponent(urlOf(request))}`,
        {
          method: "PUT",
          headers: response.headers,
          body: await response.arrayBuffer(),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        },
      );
      if (res.status !== 204) throw new Error(`cache put: HTTP ${res.status}`);
    },
  });
  return { open: async (name: string) => cache(name) as unknown as Cache };
}

function urlOf(request: RequestInfo | URL): string {
  return typeof request === "string" ? request : request instanceof URL ? request.href : request.url;
}
