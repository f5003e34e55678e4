/**
 * The edge's copy of the registry snapshot, per isolate. Fresh for REGISTRY_SNAPSHOT_TTL_MS;
 * after that it is still served while one refresh runs in the background
 * (stale-while-revalidate), so no call waits on the registry object except while the isolate
 * has no copy at all.
 */
import { loadConfig } from "../config.ts";
import type { RegistrySnapshot } from "./catalog.ts";

let cached: { snapshot: RegistrySnapshot; fetchedAt: number } | undefined;
let refreshing = false;

/** The one registry object, as a typed stub of its class. */
export function registryStub(env: Env) {
  return env.REGISTRY.get(env.REGISTRY.idFromName("registry"));
}

export async function getSnapshot(env: Env, waitUntil?: (p: Promise<unknown>) => void): Promise<RegistrySnapshot> {
  const ttl = loadConfig(env).snapshotTtlMs;
  if (cached && Date.now() - cached.fetchedAt < ttl) return cached.snapshot;
  if (cached) {
    // One background refresh at a time; nobody waits for it (its I/O belongs to the request
    // that started it, which another request must not await).
    if (!refreshing) {
      refreshing = true;
      const p = fetchSnapshot(env)
        .catch((err) => console.warn(JSON.stringify({ msg: "registry refresh failed", error: String(err) })))
        .finally(() => (refreshing = false));
      waitUntil?.(p);
    }
    return cached.snapshot;
  }
  // No copy yet: this request fetches its own rather than awaiting another request's call.
  return fetchSnapshot(env);
}

async function fetchSnapshot(env: Env): Promise<RegistrySnapshot> {
  const snapshot = await registryStub(env).snapshot();
  // Never step back to an older version if two fetches cross.
  if (!cached || snapshot.version >= cached.snapshot.version) cached = { snapshot, fetchedAt: Date.now() };
  return cached.snapshot;
}

/** Drops this isolate's copy (tests; after an operator's refresh). */
export function forgetSnapshot(): void {
  cached = undefined;
}
