/**
 * Tool bundles in the typed client (docs/contract.md#bundles): named subsets of the registry,
 * each served over MCP at `/mcp/{name}`. A tenant's own bundles (`/v1/bundles`) are kept by its
 * admin, and by operators for any tenant they name; the operators' bundles
 * (`/v1/admin/bundles`), seen by every tenant, by operators only. A PUT replaces a bundle whole,
 * so it and DELETE may be retried (they cannot take effect twice).
 */
import type { Bundle, Discovery } from "../src/registry/bundle-shape.ts";
import type { CallOptions } from "./call-options.ts";
import type { Transport } from "./http.ts";

export type { Bundle, Discovery };

/** What a PUT sends: at least one selector; a tool is in the bundle when any selector matches it. */
export interface BundleSpec {
  description?: string | null;
  /** Tools by exact name. */
  tools?: string[];
  /** Tools whose name starts with one of these (`"text."`). */
  prefixes?: string[];
  /** Tools that one of these providers offers. */
  channels?: string[];
  /** Tools whose manifest carries one of these tags. */
  tags?: string[];
  /** `list` (the default) lists the tools; `search` lists only `search_tools` and `call_tool`. */
  discovery?: Discovery;
}

/** A bundle as stored, and whether this PUT created it (201) or replaced one (200). */
export interface BundlePut {
  bundle: Bundle;
  created: boolean;
}

/** Whose bundles: an operator may name a tenant (default: its key's own); a tenant admin only its own. */
export type TenantOptions = { tenant?: string } & CallOptions;

export interface BundleMethods {
  /** A tenant admin: its tenant's own bundles; an operator: `tenant`'s. */
  listBundles(options?: TenantOptions): Promise<{ bundles: Bundle[] }>;
  getBundle(name: string, options?: TenantOptions): Promise<Bundle>;
  /** Creates the tenant's bundle or replaces it whole; `/mcp/{name}` serves it at once. */
  putBundle(name: string, bundle: BundleSpec, options?: TenantOptions): Promise<BundlePut>;
  deleteBundle(name: string, options?: TenantOptions): Promise<{ name: string; deleted: true }>;
  /** Operators: the operators' bundles, served to every tenant (a tenant's own of the same name shadows one). */
  listOperatorBundles(options?: CallOptions): Promise<{ bundles: Bundle[] }>;
  /** Operators: one of the operators' bundles. */
  getOperatorBundle(name: string, options?: CallOptions): Promise<Bundle>;
  /** Operators: creates one of the operators' bundles or replaces it whole. */
  putOperatorBundle(name: string, bundle: BundleSpec, options?: CallOptions): Promise<BundlePut>;
  /** Operators: removes one of the operators' bundles. */
  deleteOperatorBundle(name: string, options?: CallOptions): Promise<{ name: string; deleted: true }>;
}

export function bundleMethods(t: Transport, withDefaults: (o?: CallOptions) => CallOptions): BundleMethods {
  const tenantRoute = (name: string | undefined, o: TenantOptions = {}) => {
    const { tenant, ...call } = o;
    const query = tenant ? `?${new URLSearchParams({ tenant })}` : "";
    return { path: `/v1/bundles${name === undefined ? "" : `/${encodeURIComponent(name)}`}${query}`, call };
  };
  const operatorPath = (name?: string) =>
    `/v1/admin/bundles${name === undefined ? "" : `/${encodeURIComponent(name)}`}`;
  const get = <T>(path: string, o?: CallOptions) => t.call<T>("GET", path, {}, withDefaults(o), true);
  const put = (path: string, bundle: BundleSpec, o?: CallOptions) =>
    t.call<BundlePut>("PUT", path, { body: bundle }, withDefaults(o), true, async (res) => ({
      bundle: await t.json<Bundle>(res),
      created: res.status === 201,
    }));
  const remove = (path: string, o?: CallOptions) =>
    t.call<{ name: string; deleted: true }>("DELETE", path, {}, withDefaults(o), true);

  return {
    listBundles: (o) => {
      const r = tenantRoute(undefined, o);
      return get(r.path, r.call);
    },
    getBundle: (name, o) => {
      const r = tenantRoute(name, o);
      return get(r.path, r.call);
    },
    putBundle: (name, bundle, o) => {
      const r = tenantRoute(name, o);
      return put(r.path, bundle, r.call);
    },
    deleteBundle: (name, o) => {
      const r = tenantRoute(name, o);
      return remove(r.path, r.call);
    },
    listOperatorBundles: (o) => get(operatorPath(), o),
    getOperatorBundle: (name, o) => get(operatorPath(name), o),
    putOperatorBundle: (name, bundle, o) => put(operatorPath(name), bundle, o),
    deleteOperatorBundle: (name, o) => remove(operatorPath(name), o),
  };
}
