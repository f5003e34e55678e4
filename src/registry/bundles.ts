/**
 * Tool bundles (docs/contract.md#bundles): an operator's or a tenant admin's named subset of the registry, served
 * at `/mcp/{bundle}` so that an agent's `tools/list` holds only what it was meant to see. A
 * bundle names tools by exact name, by name prefix, by channel (the providers that offer
 * them) or by tag (their manifests'); a tool is in the bundle when any selector matches it.
 * Bundles travel in the registry's snapshot (src/registry/compose.ts), so the edge reads them
 * from its copy, never per request.
 * Pure: the admin route validates with it, the registry stores what it returns.
 */
import { TOOL_TAG } from "../../providers/sdk/protocol.ts";
import { RuntimeError } from "../errors.ts";
import type { Bundle, Discovery } from "./bundle-shape.ts";
import type { CatalogTool, RegistrySnapshot } from "./catalog.ts";

export type { Bundle, Discovery } from "./bundle-shape.ts";

/** A bundle's name: a slug, so that it is a path segment as it is (`/mcp/{bundle}`). */
export const BUNDLE_NAME = /^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$/;
/** Bounds of what one bundle holds, so that every snapshot stays small (it reaches every edge). */
export const BUNDLE_LIMITS = {
  selectors: 200,
  selectorLength: 128,
  description: 1000,
  bundles: 200,
  /** A tenant's own bundles: every tenant's ride in the snapshot too. */
  tenant_bundles: 20,
} as const;
const SELECTORS = ["tools", "prefixes", "channels", "tags"] as const;
export const BUNDLE_FIELDS = ["name", "description", ...SELECTORS, "discovery"];
const DISCOVERY: readonly unknown[] = ["list", "search"];

export function isBundleName(name: string): boolean {
  return BUNDLE_NAME.test(name);
}

/**
 * The bundle an operator's PUT describes, checked whole; a mistake is `invalid_request` naming
 * its field. `name` comes from the path; a body may repeat it, not contradict it.
 */
export function parseBundle(name: string, body: Record<string, unknown>, now: number): Bundle {
  if (!isBundleName(name))
    throw invalid(
      "name",
      "a bundle's name is 1 to 64 lowercase letters, digits, '-' or '_', starting and ending with a letter or digit",
    );
  for (const key of Object.keys(body))
    if (!BUNDLE_FIELDS.includes(key))
      throw invalid(key, `unknown field ${JSON.stringify(key)}; a bundle has ${BUNDLE_FIELDS.join(", ")}`);
  if (body.name !== undefined && body.name !== name) throw invalid("name", "the body's name differs from the path's");
  const description = body.description ?? null;
  if (description !== null && (typeof description !== "string" || description.length > BUNDLE_LIMITS.description))
    throw invalid("description", `description must be a string of at most ${BUNDLE_LIMITS.description} characters`);
  const selectors = Object.fromEntries(SELECTORS.map((field) => [field, selectorList(field, body[field])])) as Record<
    (typeof SELECTORS)[number],
    string[]
  >;
  if (SELECTORS.every((field) => selectors[field].length === 0))
    throw invalid("tools", "a bundle needs at least one selector: tools, prefixes, channels or tags");
  const discovery = (body.discovery === undefined ? "list" : body.discovery) as Discovery;
  if (!DISCOVERY.includes(discovery)) throw invalid("discovery", 'discovery must be "list" or "search"');
  return { name, description, ...selectors, discovery, updated_at: new Date(now).toISOString() };
}

function selectorList(field: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.length > BUNDLE_LIMITS.selectors)
    throw invalid(field, `${field} must be an array of at most ${BUNDLE_LIMITS.selectors} strings`);
  for (const s of value)
    if (typeof s !== "string" || s.length === 0 || s.length > BUNDLE_LIMITS.selectorLength || /\s/.test(s))
      throw invalid(
        field,
        `each of ${field} must be a string of 1 to ${BUNDLE_LIMITS.selectorLength} characters without spaces`,
      );
    else if (field === "tags" && !TOOL_TAG.test(s))
      throw invalid(field, `tag ${JSON.stringify(s)} is not a tag: a tool's tags match ${TOOL_TAG}`);
  return [...new Set(value as string[])].sort();
}

/**
 * The bundle of that name as `tenant`'s callers see it: the tenant's own first, else the
 * operators'. Another tenant's bundles are never seen. Own keys only: "constructor" is a valid name.
 */
export function bundleOf(snapshot: RegistrySnapshot, tenant: string, name: string): Bundle | undefined {
  const own = ownBundles(snapshot, tenant);
  if (own && Object.hasOwn(own, name)) return own[name];
  return snapshot.bundles && Object.hasOwn(snapshot.bundles, name) ? snapshot.bundles[name] : undefined;
}

/** The names of the bundles `tenant`'s callers may use: its own and the operators', sorted. */
export function bundleNames(snapshot: RegistrySnapshot, tenant: string): string[] {
  const names = new Set([...Object.keys(ownBundles(snapshot, tenant) ?? {}), ...Object.keys(snapshot.bundles ?? {})]);
  return [...names].sort();
}

function ownBundles(snapshot: RegistrySnapshot, tenant: string): Record<string, Bundle> | undefined {
  const all = snapshot.tenant_bundles;
  return all && Object.hasOwn(all, tenant) ? all[tenant] : undefined;
}

/**
 * Whether the snapshot's tool `name` is in the bundle. A name the registry does not have is in
 * no bundle, so calling it answers as calling an unknown tool does.
 */
export function toolInBundle(bundle: Bundle, snapshot: RegistrySnapshot, name: string): boolean {
  return Object.hasOwn(snapshot.tools, name) && inBundle(bundle, snapshot.tools[name]);
}

/**
 * The bundles a request of `tenant` at `/mcp` or `/mcp/{pathBundle}` may list and call from
 * (each resolved as `bundleOf` does): the path's bundle; else the key's bundles (those that
 * still exist); undefined when neither limits it
 * (every tool). null: the path names a bundle this caller does not have — none, or one outside
 * a limited key's bundles; either answers as no bundle.
 */
export function bundlesInView(
  snapshot: RegistrySnapshot,
  tenant: string,
  pathBundle: string | undefined,
  keyBundles: readonly string[] | undefined,
): Bundle[] | undefined | null {
  if (pathBundle !== undefined) {
    const bundle = isBundleName(pathBundle) ? bundleOf(snapshot, tenant, pathBundle) : undefined;
    return bundle && (!keyBundles || keyBundles.includes(pathBundle)) ? [bundle] : null;
  }
  if (!keyBundles) return undefined;
  return keyBundles.flatMap((name) => bundleOf(snapshot, tenant, name) ?? []);
}

/** Whether the snapshot's tool `name` is in any of the bundles. */
export function toolInView(bundles: readonly Bundle[], snapshot: RegistrySnapshot, name: string): boolean {
  return bundles.some((b) => toolInBundle(b, snapshot, name));
}

/**
 * Whether a catalog tool is in the bundle: named, under a prefix, or, in any version, offered by
 * one of its channels or with one of its tags in the offering's manifest.
 */
export function inBundle(bundle: Bundle, tool: CatalogTool): boolean {
  if (bundle.tools.includes(tool.name)) return true;
  if (bundle.prefixes.some((p) => tool.name.startsWith(p))) return true;
  // A snapshot from a build before tags holds bundles without them.
  const tags = bundle.tags ?? [];
  if (bundle.channels.length === 0 && tags.length === 0) return false;
  return Object.values(tool.versions).some((offerings) =>
    offerings.some(
      (o) => bundle.channels.includes(o.provider) || (o.manifest.tags ?? []).some((tag) => tags.includes(tag)),
    ),
  );
}

function invalid(field: string, message: string): RuntimeError {
  return new RuntimeError("invalid_request", message, { field });
}
