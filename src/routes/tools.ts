/** TRT-002 §3 registry view: GET /v1/tools and GET /v1/tools/{name}. */
import { reply } from "../codec/negotiate.ts";
import { Hono } from "hono";
import type { ToolView } from "../contract.ts";
import type { AppEnv } from "../app-env.ts";
import { RuntimeError } from "../errors.ts";
import { healthKey, type CatalogTool, type RegistrySnapshot } from "../registry/catalog.ts";
import { breakerStateOf, statsFor } from "../registry/eligibility.ts";
import { rankProviders } from "../registry/rank.ts";
import { compareSemver } from "../registry/semver.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";

export const tools = new Hono<AppEnv>();

tools.get("/", async (c) => {
  const snapshot = await getSnapshot(c.env, (p) => c.executionCtx.waitUntil(p));
  const list = Object.values(snapshot.tools).map((tool) => {
    const active = tool.versions[tool.active_version];
    return {
      name: tool.name,
      active_version: tool.active_version,
      description: active[0].manifest.description,
      versions: Object.keys(tool.versions).sort(compareSemver),
      providers: rankProviders(active, { stats: statsFor(snapshot, tool.name) }).map((r) => r.offering.provider),
    };
  });
  return reply(c, { registry_version: snapshot.version, tools: list });
});

tools.get("/:name", async (c) => {
  const snapshot = await getSnapshot(c.env, (p) => c.executionCtx.waitUntil(p));
  const name = c.req.param("name");
  const tool = Object.hasOwn(snapshot.tools, name) ? snapshot.tools[name] : undefined;
  if (!tool) throw new RuntimeError("tool_not_found", `no tool named ${name}`, { tool: name });
  return reply(c, toolView(tool, snapshot));
});

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
      // Listed in the order the runtime would rank them for an unrestricted caller.
      providers: rankProviders(tool.versions[version], { stats }).map(({ offering: o }) => ({
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
        input_schema: o.manifest.input_schema,
        output_schema: o.manifest.output_schema,
      })),
    })),
  };
}
