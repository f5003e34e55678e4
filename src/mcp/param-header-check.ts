/**
 * The `Mcp-Param-*` check of a 2026-07-28 `tools/call` against the tool this caller would call
 * (the rules are param-headers.ts's; this finds the schema they apply to).
 */
import { callableOffering, toolDetail } from "../execution/tool-listing.ts";
import { toolInView } from "../registry/bundles.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { headerDeclarations, paramMismatch, type ParamMismatch } from "./param-headers.ts";
import type { McpScope } from "./scope.ts";

const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const MODERN = "2026-07-28";

/**
 * Whether a 2026-07-28 `tools/call`'s `Mcp-Param-*` headers disagree with its arguments. The
 * schema is the one this caller is listed (the version it asks for, else the active one); a tool
 * it cannot see, or outside the bundles in view, is left to `tools/call` to refuse as unknown.
 */
export async function paramHeaderMismatch(
  scope: McpScope,
  body: unknown,
  headers: Headers,
): Promise<ParamMismatch | undefined> {
  const m = body as
    { method?: unknown; params?: { name?: unknown; arguments?: unknown; _meta?: Record<string, unknown> } } | undefined;
  const name = m?.params?.name;
  const meta = m?.params?._meta;
  if (m?.method !== "tools/call" || typeof name !== "string" || meta?.[PROTOCOL_VERSION] !== MODERN) return undefined;
  const detail = await toolDetail(scope.env, scope.caller, name, scope.waitUntil);
  if (!detail.ok) return undefined;
  if (scope.bundles && !toolInView(scope.bundles, await getSnapshot(scope.env, scope.waitUntil), name))
    return undefined;
  const version = meta["io.tool-runtime/version"];
  const offering = callableOffering(detail.value, scope.caller, typeof version === "string" ? version : undefined);
  const declarations = offering && headerDeclarations(offering.input_schema);
  return declarations?.length ? paramMismatch(declarations, m.params!.arguments, headers) : undefined;
}
