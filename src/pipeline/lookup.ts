/**
 * Stage 2 (docs/contract.md#resolution): registry lookup on the edge's cached snapshot. Resolves the version
 * (omitted → the active one) and returns every offering of it; ranking follows the
 * capability filter (docs/contract.md#capabilities level 1 comes before the choice).
 *
 * The lookup is of the registry as the caller sees it (src/registry/visibility.ts): a tool,
 * version or provider its channels cannot reach is `tool_not_found` with the same message and
 * details as one that does not exist, and the versions and providers an answer lists are only
 * those it can reach (docs/contract.md#resolution: what it cannot see does not exist for it).
 */
import { RuntimeError } from "../errors.ts";
import type { CatalogTool, Offering, RegistrySnapshot } from "../registry/catalog.ts";
import { compareSemver } from "../registry/semver.ts";
import { visibleTool } from "../registry/visibility.ts";
import type { Caller } from "../contract.ts";

export interface ResolvedTool {
  tool: CatalogTool;
  version: string;
  offerings: Offering[];
}

export function resolveTool(
  snapshot: RegistrySnapshot,
  caller: Pick<Caller, "channels">,
  name: string,
  version?: string,
  provider?: string,
): ResolvedTool {
  const full = Object.hasOwn(snapshot.tools, name) ? snapshot.tools[name] : undefined;
  const tool = full && visibleTool(caller, full);
  if (!tool) throw new RuntimeError("tool_not_found", `no tool named ${name}`, { tool: name });
  const chosen = version ?? tool.active_version;
  const offerings = Object.hasOwn(tool.versions, chosen) ? tool.versions[chosen] : undefined;
  if (!offerings) {
    throw new RuntimeError("tool_not_found", `${name} has no version ${chosen}`, {
      tool: name,
      version: chosen,
      available_versions: Object.keys(tool.versions).sort(compareSemver),
    });
  }
  if (provider !== undefined && !offerings.some((o) => o.provider === provider)) {
    // docs/contract.md#resolution: a named provider is looked up directly; it does not fall back.
    throw new RuntimeError("tool_not_found", `provider ${provider} does not offer ${name}@${chosen}`, {
      tool: name,
      version: chosen,
      provider,
      providers: offerings.map((o) => o.provider),
    });
  }
  return { tool, version: chosen, offerings };
}
