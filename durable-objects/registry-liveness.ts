/**
 * When the registry reads the manifests again, and how the dead come back (docs/contract.md#liveness):
 * every manifest refresh, every UNREACHABLE_RETRY_MS while a provider is unreachable, by the
 * alarm every PROBE_EVERY_MS while one is dead; one that answers, dead for at least
 * LIVENESS_PROBE_MS, is alive again — no operator needed.
 */
import type { ProviderLoad } from "../src/registry/catalog.ts";
import type { ProviderHealthView } from "../src/registry/health-view.ts";
import type { RegistryStore } from "./registry-store.ts";

/** While a provider is unreachable, try it again this often rather than every MANIFEST_REFRESH_MS. */
const UNREACHABLE_RETRY_MS = 2_000;
/** A dead provider is skipped at least this long before its answering manifest revives it. */
export const LIVENESS_PROBE_MS = 30_000;
/** How often the dead are probed again, by the registry's alarm, until they answer. */
export const PROBE_EVERY_MS = 10_000;

/** Whether the catalog must be loaded again: not loaded for this configuration, stale, or someone is down. */
export function reloadDue(
  store: RegistryStore,
  o: { configKey: () => string; manifestRefreshMs: number; clock: () => number },
): boolean {
  const stored = store.catalog();
  if (!stored || stored.configKey !== o.configKey()) return true;
  const age = o.clock() - stored.loadedAt;
  if (age > o.manifestRefreshMs) return true;
  if (age <= UNREACHABLE_RETRY_MS) return false;
  const deadLongEnough = [...store.dead().values()].some((d) => o.clock() - d.since >= LIVENESS_PROBE_MS);
  return deadLongEnough || stored.catalog.providers.some((p) => !p.reachable);
}

/** Whether a liveness probe is needed: any provider dead or unreachable. */
export function probeNeeded(store: RegistryStore): boolean {
  return store.dead().size > 0 || (store.catalog()?.catalog.providers.some((p) => !p.reachable) ?? false);
}

/**
 * Marks alive every provider whose manifest answered after being dead long enough; true when
 * any was. `revive`: the provider's health shard forgets its own verdict too (its view is kept),
 * so that no edge is told "dead" again.
 */
export async function reviveAnswering(
  store: RegistryStore,
  loads: ProviderLoad[],
  now: number,
  revive: (provider: string) => Promise<ProviderHealthView>,
): Promise<boolean> {
  let revived = false;
  for (const load of loads) {
    const dead = store.dead().get(load.config.name);
    if (
      load.manifest &&
      !load.error &&
      dead &&
      now - dead.since >= LIVENESS_PROBE_MS &&
      store.markAlive(load.config.name)
    ) {
      revived = true;
      store.saveEdgeHealth(await revive(load.config.name));
    }
  }
  return revived;
}
