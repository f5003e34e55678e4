/**
 * `tools/list` on the MCP face: the active version of every tool this caller can actually call,
 * by name (a stable order), each described from its manifest. What the caller can call is the
 * registry's view for its channels (src/registry/tool-views.ts: a provider it cannot reach is
 * not there) narrowed by its capabilities: a tool whose `capability_required` no grant of the
 * caller could ever cover is left out too.
 *
 * Manifest → MCP Tool:
 *   title            the name, in words ("math.evaluate" → "Math evaluate")
 *   inputSchema      input_schema, as is (the runtime validates it; MCP's layer does not)
 *   outputSchema     output_schema, when it describes an object (structuredContent is one)
 *   readOnlyHint     effects "read"
 *   destructiveHint  effects "write" or "delete"
 *   idempotentHint   idempotent
 *   openWorldHint    a `network:` capability (the tool reaches outside the runtime)
 *   _meta            io.tool-runtime/version (the active one), /versions (all callable ones) and
 *                    /tags (those of every offering the caller sees, in any version, sorted: what
 *                    GET /v1/tools shows and a bundle's `tags` selects by)
 * A specific version is called with `_meta["io.tool-runtime/version"]` on `tools/call`.
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { Caller, ToolOfferingView, ToolView } from "../contract.ts";
import { callableOffering, callableVersions, toolDetail, toolList } from "../execution/tool-listing.ts";
import type { McpScope } from "./scope.ts";
import { toolInView } from "../registry/bundles.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import type { RegistrySnapshot } from "../registry/catalog.ts";
import { nextClockChange } from "../registry/eligibility.ts";

/** How a tool runs when a client can take a task (2026-07-28 extension, 2025-11-25 `taskSupport`). */
export type TaskUse = "never" | "optional" | "always";

/** Instant calls are never tasks; long-running ones always are when the client takes tasks. */
export function taskUseOf(latencyClass: ToolOfferingView["latency_class"]): TaskUse {
  if (latencyClass === "instant") return "never";
  return latencyClass === "long_running" || latencyClass === "slow" ? "always" : "optional";
}

/**
 * `tools/list` answers kept per edge copy of the registry: a new version, or a health view this
 * isolate took, is a new snapshot object, so an entry never outlives what it was built from.
 * Within one copy the answer depends on the caller's channels and capabilities, the bundles in
 * view and the era (the key), and on the clock only where a breaker's cooldown or trial window
 * ends (`nextClockChange`): the entry is kept until then. Bounded per copy.
 */
const listings = new WeakMap<RegistrySnapshot, Map<string, { tools: Tool[]; until: number }>>();
const LISTINGS_PER_COPY = 256;

export async function listTools(scope: McpScope, era: "modern" | "legacy"): Promise<Tool[]> {
  const snapshot = await getSnapshot(scope.env, scope.waitUntil);
  const now = Date.now();
  const key = JSON.stringify([era, scope.caller.channels, scope.caller.capabilities, scope.bundles ?? null]);
  let held = listings.get(snapshot);
  const hit = held?.get(key);
  if (hit && now < hit.until) return [...hit.tools];
  const tools = await buildList(scope, era);
  if (!held) listings.set(snapshot, (held = new Map()));
  if (held.size >= LISTINGS_PER_COPY) held.delete(held.keys().next().value!);
  held.set(key, { tools, until: nextClockChange(snapshot, now) });
  return [...tools];
}

async function buildList(scope: McpScope, era: "modern" | "legacy"): Promise<Tool[]> {
  const list = await toolList(scope.env, scope.caller, scope.waitUntil);
  if (!list.ok) return [];
  // At /mcp/{bundle}, or for a key limited to bundles: what the caller may see that the
  // bundles in view hold (docs/contract.md#bundles).
  const { bundles } = scope;
  const snapshot = bundles ? await getSnapshot(scope.env, scope.waitUntil) : undefined;
  const summaries = list.value.tools.filter((t) => !bundles || toolInView(bundles, snapshot!, t.name));
  const details = await Promise.all(summaries.map((t) => toolDetail(scope.env, scope.caller, t.name, scope.waitUntil)));
  const tools: Tool[] = [];
  details.forEach((detail, i) => {
    const tool = detail.ok ? mcpTool(detail.value, summaries[i].tags, scope.caller, era) : undefined;
    if (tool) tools.push(tool);
  });
  return tools;
}

/** `tags`: the tool's, as `GET /v1/tools` gives them to this caller (src/registry/tool-views.ts). */
function mcpTool(view: ToolView, tags: string[], caller: Caller, era: "modern" | "legacy"): Tool | undefined {
  const offering = callableOffering(view, caller);
  // MCP tools take an object of arguments; a schema of another root type cannot be offered.
  if (!offering || (offering.input_schema as { type?: unknown }).type !== "object") return undefined;
  const versions = callableVersions(view, caller);
  const output = offering.output_schema as { type?: unknown };
  return {
    name: view.name,
    title: titleOf(view.name),
    description: view.description,
    inputSchema: offering.input_schema as Tool["inputSchema"],
    ...(output.type === "object" ? { outputSchema: offering.output_schema as Tool["outputSchema"] } : {}),
    annotations: {
      readOnlyHint: offering.effects === "read",
      destructiveHint: offering.effects === "write" || offering.effects === "delete",
      idempotentHint: offering.idempotent,
      openWorldHint: (offering.capability_required ?? "").startsWith("network:"),
    },
    // 2025-11-25 tools say whether a task may run them; 2026-07-28 removed the field (the server decides).
    ...(era === "legacy"
      ? { execution: { taskSupport: taskUseOf(offering.latency_class) === "never" ? "forbidden" : "optional" } }
      : {}),
    _meta: {
      "io.tool-runtime/version": view.active_version,
      "io.tool-runtime/versions": versions,
      "io.tool-runtime/tags": tags,
    },
  } as Tool;
}

function titleOf(name: string): string {
  const words = name
    .split(/[._-]+/)
    .filter(Boolean)
    .join(" ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
