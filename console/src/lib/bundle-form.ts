/**
 * The bundles page's logic (docs/contract.md#bundles), apart from its markup: whose bundles it
 * shows (a tenant's, through `/v1/bundles`, or the operators', through `/v1/admin/bundles`),
 * the form's text to a bundle's PUT body and back, and the URL each bundle is served at.
 */
import type { Bundle, BundlePut, BundleSpec, Discovery, ToolRuntimeClient } from "../../../client/index.ts";

/** Whose bundles the page shows: the operators' (their key only), or a tenant's (`tenant` named by an operator). */
export type BundleScope = { operators: true } | { operators: false; tenant?: string };

/** What the form holds, as typed: each selector a comma- or line-separated list. */
export interface BundleForm {
  name: string;
  description: string;
  tools: string;
  prefixes: string;
  channels: string;
  tags: string;
  discovery: Discovery;
}

export const EMPTY_FORM: BundleForm = {
  name: "",
  description: "",
  tools: "",
  prefixes: "",
  channels: "",
  tags: "",
  discovery: "list",
};

/** The scope an operator asks for by the tenant it names (none: the operators' own); any other key's is its tenant's. */
export function scopeOf(operator: boolean, tenant: string): BundleScope {
  if (!operator) return { operators: false };
  const named = tenant.trim();
  return named ? { operators: false, tenant: named } : { operators: true };
}

/** The client's calls for that scope. */
export function bundlesIn(client: ToolRuntimeClient, scope: BundleScope) {
  if (scope.operators)
    return {
      list: () => client.listOperatorBundles(),
      put: (name: string, spec: BundleSpec): Promise<BundlePut> => client.putOperatorBundle(name, spec),
      remove: (name: string) => client.deleteOperatorBundle(name),
    };
  const o = scope.tenant ? { tenant: scope.tenant } : {};
  return {
    list: () => client.listBundles(o),
    put: (name: string, spec: BundleSpec): Promise<BundlePut> => client.putBundle(name, spec, o),
    remove: (name: string) => client.deleteBundle(name, o),
  };
}

/** "a, b\nc" → ["a", "b", "c"]: commas and line breaks both separate; blanks are dropped. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((x) => x.trim())
    .filter(Boolean);
}

/** The PUT body: the selectors given, the description if any; the runtime checks the rest and names a bad field. */
export function specOf(form: BundleForm): BundleSpec {
  const spec: BundleSpec = { discovery: form.discovery };
  const description = form.description.trim();
  if (description) spec.description = description;
  for (const field of ["tools", "prefixes", "channels", "tags"] as const) {
    const values = splitList(form[field]);
    if (values.length) spec[field] = values;
  }
  return spec;
}

/** A stored bundle back in the form, to edit and put again (a put replaces it whole). */
export function formOf(b: Bundle): BundleForm {
  return {
    name: b.name,
    description: b.description ?? "",
    tools: b.tools.join(", "),
    prefixes: b.prefixes.join(", "),
    channels: b.channels.join(", "),
    tags: b.tags.join(", "),
    discovery: b.discovery,
  };
}

/** Where an MCP client reaches the bundle: the console's own origin is the runtime's. */
export function mcpUrl(origin: string, name: string): string {
  return `${origin}/mcp/${encodeURIComponent(name)}`;
}
