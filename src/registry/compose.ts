/**
 * The snapshot edges cache, composed from the loaded catalog and what the registry learned
 * since: operators' overrides (trust, disabled), liveness, health, deprecations and bundles. Pure.
 */
import type { Trust } from "../contract.ts";
import type { CatalogTool, DeprecationNotice, OfferingHealth, ProviderState, RegistrySnapshot } from "./catalog.ts";
import { activeVersion } from "./semver.ts";
import type { Bundle } from "./bundles.ts";

export interface ComposeInput {
  version: number;
  built_at: number;
  catalog: Pick<RegistrySnapshot, "providers" | "tools" | "problems">;
  overrides: Map<string, { trust?: Trust; disabled?: boolean; max_concurrency?: number | null }>;
  dead: Map<string, { since: number; reason: string }>;
  health: Record<string, OfferingHealth>;
  deprecations: Map<string, DeprecationNotice>;
  /** Operators' tool bundles (src/registry/bundles.ts); absent: none. */
  bundles?: Map<string, Bundle>;
  /** Tenant admins' tool bundles, by tenant; absent: none. */
  tenantBundles?: Map<string, Map<string, Bundle>>;
  now: number;
}

export function composeSnapshot(input: ComposeInput): RegistrySnapshot {
  const providers: ProviderState[] = input.catalog.providers.map((p) => {
    const o = input.overrides.get(p.name);
    const dead = input.dead.get(p.name);
    const { max_concurrency: declared, ...rest } = p;
    // An operator's limit wins over the manifest's; null lifts the override (docs/contract.md#waiting).
    const limit = o?.max_concurrency != null ? o.max_concurrency : declared;
    return {
      ...rest,
      trust: o?.trust ?? p.trust,
      ...(o?.disabled ? { disabled: true } : {}),
      ...(dead ? { dead } : {}),
      ...(limit !== undefined ? { max_concurrency: limit } : {}),
    };
  });
  const trustOf = new Map(providers.map((p) => [p.name, p.trust]));
  const deprecations = Object.fromEntries(input.deprecations);

  const tools: Record<string, CatalogTool> = {};
  for (const [name, tool] of Object.entries(input.catalog.tools)) {
    const versions: CatalogTool["versions"] = {};
    for (const [version, offerings] of Object.entries(tool.versions)) {
      versions[version] = offerings.map((o) => ({ ...o, trust: trustOf.get(o.provider) ?? o.trust }));
    }
    // A version past its sunset is no longer anyone's default.
    const live = Object.keys(versions).filter((v) => !pastSunset(deprecations[`${name}@${v}`], input.now));
    tools[name] = { name, versions, active_version: activeVersion(live) ?? tool.active_version };
  }
  return {
    version: input.version,
    built_at: input.built_at,
    providers,
    tools,
    problems: input.catalog.problems,
    health: input.health,
    deprecations,
    bundles: Object.fromEntries(input.bundles ?? []),
    tenant_bundles: Object.fromEntries([...(input.tenantBundles ?? [])].map(([t, b]) => [t, Object.fromEntries(b)])),
  };
}

export function pastSunset(d: DeprecationNotice | undefined, now: number): boolean {
  return d !== undefined && Date.parse(d.sunset) <= now;
}
