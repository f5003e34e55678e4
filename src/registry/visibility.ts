/**
 * What of the registry a caller may see (docs/contract.md#resolution, with level 1 of docs/contract.md#capabilities): only the
 * offerings of providers its channels reach, and so only the versions and tools at least one of
 * them offers. Every lookup for a caller goes through here — listing, detail and calls on every
 * face — so a tool the caller cannot reach answers exactly like one that does not exist, and
 * no answer names a provider or version it cannot reach.
 */
import type { Caller } from "../contract.ts";
import type { CatalogTool, Offering } from "./catalog.ts";
import { compareSemver } from "./semver.ts";

/** The offerings of one version the caller's channels reach. */
export function visibleOfferings(caller: Pick<Caller, "channels">, offerings: readonly Offering[]): Offering[] {
  const all = caller.channels.includes("*");
  return offerings.filter((o) => all || caller.channels.includes(o.provider));
}

/**
 * The tool as this caller may see it, or undefined when it can reach no version of it. Its
 * active version is the tool's when visible, else the newest visible one.
 */
export function visibleTool(caller: Pick<Caller, "channels">, tool: CatalogTool): CatalogTool | undefined {
  const versions: Record<string, Offering[]> = {};
  for (const [version, offerings] of Object.entries(tool.versions)) {
    const seen = visibleOfferings(caller, offerings);
    if (seen.length > 0) versions[version] = seen;
  }
  if (Object.keys(versions).length === 0) return undefined;
  const active = versions[tool.active_version]
    ? tool.active_version
    : Object.keys(versions).sort(compareSemver).at(-1)!;
  return { name: tool.name, active_version: active, versions };
}
