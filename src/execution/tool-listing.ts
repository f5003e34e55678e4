/**
 * What a caller is shown of the registry, by one rule on every face: REST `GET /v1/tools`,
 * Connect `ListTools`, RPC `listTools` and MCP `tools/list` all list through `toolList` and
 * `toolDetail` — the registry's view for the caller's channels (src/registry/tool-views.ts), so
 * a tool the caller cannot reach is absent everywhere.
 *
 * MCP's `tools/list` shows only what the caller could call, so it narrows that view further by
 * the caller's capabilities: `callableOffering` and `callableVersions` ask ahead of any call
 * whether stage 3's level-3 rule (src/pipeline/capability.ts) could ever pass. The rule lives
 * here, beside the listing, so that no face needs the pipeline to know what a caller may see.
 */
import type { Caller, ToolOfferingView, ToolView } from "../contract.ts";
import { coveringGrant } from "../pipeline/capability.ts";

export { toolDetail, toolList } from "../registry/tool-views.ts";

/** The offering that describes a version to this caller: the best-ranked one it could call. */
export function callableOffering(
  view: ToolView,
  caller: Caller,
  version = view.active_version,
): ToolOfferingView | undefined {
  const v = view.versions.find((x) => x.version === version);
  return v?.providers.find((o) => mayEverHold(caller.capabilities, o.capability_required));
}

/** The versions of which this caller could call at least one offering. */
export function callableVersions(view: ToolView, caller: Caller): string[] {
  return view.versions
    .filter((v) => v.providers.some((o) => mayEverHold(caller.capabilities, o.capability_required)))
    .map((v) => v.version);
}

/**
 * Whether some call of a tool needing `template` could pass level 3 (docs/contract.md#capabilities) with these
 * grants. A template with an input placeholder (`network:{url.host}`) is satisfiable by any
 * grant of its kind, for the host that grant names.
 */
export function mayEverHold(grants: readonly string[], template: string | null): boolean {
  if (template === null) return true;
  if (!/\{[^}]*\}/.test(template)) return coveringGrant(grants, template) !== undefined;
  const kind = template.slice(0, template.indexOf(":"));
  return grants.some((g) => g === "*" || g.slice(0, g.indexOf(":")) === kind);
}
