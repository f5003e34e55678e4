/**
 * Loading what the providers and upstreams serve, one at a time: a provider's manifest over its
 * service binding, an upstream's listing. One that stops answering keeps its last known
 * offerings, marked dead, so that ranking skips it instead of forgetting it (docs/contract.md#liveness).
 */
import { providerBinding, type ProviderConfig } from "../src/config.ts";
import type { ProviderLoad } from "../src/registry/catalog.ts";
import type { UpstreamConfig } from "../src/upstreams/config.ts";
import { withTimeout } from "../src/with-timeout.ts";
import type { ProviderManifest } from "../providers/sdk/protocol.ts";
import type { Catalog, RegistryStore } from "./registry-store.ts";
import type { UpstreamRegistry } from "./upstream-registry.ts";

const MANIFEST_TIMEOUT_MS = 5_000;

/** What a load reads and writes: the store, the catalog loaded last time, the registry's clock. */
export interface LoadContext {
  store: RegistryStore;
  catalog: () => Catalog | undefined;
  clock: () => number;
}

export async function loadProvider(env: Env, at: LoadContext, config: ProviderConfig): Promise<ProviderLoad> {
  const seq = at.store.registrationSeq(config.name);
  const service = providerBinding(env, config);
  let error: string;
  try {
    if (!service || typeof service.manifest !== "function") throw new Error(`no service binding ${config.binding}`);
    const manifest = await withTimeout<ProviderManifest>(
      service.manifest(),
      MANIFEST_TIMEOUT_MS,
      `manifest() took over ${MANIFEST_TIMEOUT_MS} ms`,
    );
    if (!manifest || !Array.isArray(manifest.tools)) throw new Error("manifest() returned no tool list");
    return { config, seq, manifest };
  } catch (err) {
    error = `manifest() failed: ${(err as Error).message}`;
  }
  const last = lastKnownManifest(at.catalog(), config.name);
  if (last) {
    at.store.markDead(config.name, at.clock(), error);
    return { config, seq, manifest: last, error };
  }
  return { config, seq, error };
}

export async function loadUpstream(upstreams: UpstreamRegistry, at: LoadContext, upstream: UpstreamConfig) {
  const seq = at.store.registrationSeq(upstream.name);
  const lastKnown = Object.values(at.catalog()?.tools ?? {})
    .flatMap((t) => Object.values(t.versions).flat())
    .filter((o) => o.provider === upstream.name && o.upstream !== undefined);
  const load = await upstreams.load(upstream, seq, lastKnown);
  // As for a provider whose manifest stops answering: the last known tools, marked dead.
  if (load.error && load.manifest) at.store.markDead(upstream.name, at.clock(), load.error);
  return load;
}

function lastKnownManifest(catalog: Catalog | undefined, provider: string): ProviderManifest | undefined {
  const tools = Object.values(catalog?.tools ?? {})
    .flatMap((t) => Object.values(t.versions).flat())
    .filter((o) => o.provider === provider)
    .map((o) => o.manifest);
  return tools.length > 0 ? { provider, sdk_version: "last known", tools } : undefined;
}
