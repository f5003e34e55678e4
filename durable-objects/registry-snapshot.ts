/**
 * The snapshot the registry answers with, composed from what its store holds: the catalog,
 * the operators' overrides, deprecations and bundles, the dead, and each provider's latest health view
 * from its shard (whose `seq` goes with it, so that no isolate keeps an older patch).
 */
import { healthKey, type OfferingHealth, type RegistrySnapshot } from "../src/registry/catalog.ts";
import { composeSnapshot } from "../src/registry/compose.ts";
import type { RegistryStore } from "./registry-store.ts";

export function composeFromStore(store: RegistryStore, now: () => number): RegistrySnapshot {
  const health: Record<string, OfferingHealth> = {};
  const seqs: Record<string, number> = {};
  for (const view of store.edgeHealth().values()) {
    seqs[view.provider] = view.seq;
    for (const [tool, h] of Object.entries(view.tools)) health[healthKey(view.provider, tool)] = h;
  }
  const composed = composeSnapshot({
    version: store.version(),
    built_at: now(),
    catalog: store.catalog()?.catalog ?? { providers: [], tools: {}, problems: [] },
    overrides: store.overrides(),
    dead: store.dead(),
    health,
    deprecations: store.deprecations(),
    bundles: store.bundles(),
    tenantBundles: store.allTenantBundles(),
    now: now(),
  });
  composed.health_seq = seqs;
  return composed;
}
