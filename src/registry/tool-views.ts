/**
 * The registry as callers see it (docs/contract.md#routes `GET /v1/tools`, `GET /v1/tools/{name}`), for every
 * face. docs/contract.md#resolution: a tool the caller can never reach looks exactly like one that does not
 * exist — a caller sees only the providers its channels reach (docs/contract.md#capabilities level 1), and only the
 * tools and versions at least one of them offers.
 */
import type { Caller, Outcome, ToolView } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { healthKey, type CatalogTool, type Offering, type RegistrySnapshot } from "./catalog.ts";
import { breakerStateOf, partitionOfferings, statsFor } from "./eligibility.ts";
import { rankProviders } from "./rank.ts";
import { compareSemver } from "./semver.ts";
import { getSnapshot } from "./snapshot-cache.ts";
import { visibleTool } from "./visibility.ts";

export interface ToolSummary {
  name: string;
  active_version: string;
  description: string;
  versions: string[];
  /** Providers of the active version, best first. */
  providers: string[];
  /** The tags of every offering the caller sees, in any version, sorted (docs/contract.md#bundles). */
  tags: string[];
}

export async function toolList(
  env: Env,
  caller: Caller,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<Outcome<{ registry_version: number; tools: ToolSummary[] }>> {
  const snapshot = await getSnapshot(env, waitUntil);
  const tools: ToolSummary[] = [];
  for (const full of Object.values(snapshot.tools).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const tool = visibleTool(caller, full);
    if (!tool) continue;
    const active = tool.versions[tool.active_version];
    tools.push({
      name: tool.name,
      active_version: tool.active_version,
      description: active[0].manifest.description,
      versions: Object.keys(tool.versions).sort(compareSemver),
      providers: bestFirst(active, snapshot, tool.name).map((o) => o.provider),
      tags: tagsOf(tool),
    });
  }
  return { ok: true, value: { registry_version: snapshot.version, tools } };
}

export async function toolDetail(
  env: Env,
  caller: Caller,
  name: string,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<Outcome<ToolView>> {
  const snapshot = await getSnapshot(env, waitUntil);
  const full = Object.hasOwn(snapshot.tools, name) ? snapshot.tools[name] : undefined;
  const tool = full && visibleTool(caller, full);
  if (!tool)
    return { ok: false, error: new RuntimeError("tool_not_found", `no tool named ${name}`, { tool: name }).toBody() };
  return { ok: true, value: toolView(tool, snapshot) };
}

/** The tags of the tool's offerings, in any version: what a bundle's `tags` selector matches (src/registry/bundles.ts). */
function tagsOf(tool: CatalogTool): string[] {
  const tags = new Set(
    Object.values(tool.versions).flatMap((offerings) => offerings.flatMap((o) => o.manifest.tags ?? [])),
  );
  return [...tags].sort();
}

/** Offerings in the order a call would try them, then those it would pass over now. */
function bestFirst(offerings: Offering[], snapshot: RegistrySnapshot, tool: string, now = Date.now()): Offering[] {
  const { eligible, excluded } = partitionOfferings(offerings, snapshot, now);
  const stats = statsFor(snapshot, tool);
  const ranked = (list: Offering[]) => rankProviders(list, { stats }).map((r) => r.offering);
  return [...ranked(eligible.map((e) => e.offering)), ...ranked(excluded.map((e) => e.offering))];
}

function toolView(tool: CatalogTool, snapshot: RegistrySnapshot): ToolView {
  const now = Date.now();
  const providers = new Map(snapshot.providers.map((p) => [p.name, p]));
  const stats = statsFor(snapshot, tool.name);
  const versions = Object.keys(tool.versions).sort(compareSemver).reverse();
  return {
    name: tool.name,
    active_version: tool.active_version,
    description: tool.versions[tool.active_version][0].manifest.description,
    versions: versions.map((version) => ({
      version,
      active: version === tool.active_version,
      description: tool.versions[version][0].manifest.description,
      deprecation: snapshot.deprecations[`${tool.name}@${version}`] ?? null,
      // Best first: the order the runtime would rank them for this caller, then the ones it
      // would not call now (dead, disabled, breaker open).
      providers: bestFirst(tool.versions[version], snapshot, tool.name, now).map((o) => ({
        provider: o.provider,
        trust: o.trust,
        p50_ms: stats[o.provider]?.p50_ms ?? null,
        error_rate: stats[o.provider]?.error_rate ?? null,
        samples: snapshot.health[healthKey(o.provider, tool.name)]?.samples ?? 0,
        breaker: breakerStateOf(snapshot, o.provider, tool.name, now),
        alive: !providers.get(o.provider)?.dead,
        disabled: providers.get(o.provider)?.disabled === true,
        capability_required: o.manifest.capability_required,
        idempotent: o.manifest.idempotent,
        latency_class: o.manifest.latency_class,
        effects: o.manifest.effects,
        coercion: o.manifest.coercion,
        partial_merge: o.manifest.partial_merge ?? "replace",
        error_codes: o.manifest.error_codes ?? [],
        tags: o.manifest.tags ?? [],
        input_schema: o.manifest.input_schema,
        output_schema: o.manifest.output_schema,
      })),
    })),
  };
}
