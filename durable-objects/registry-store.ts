/**
 * The registry object's SQLite tables, set up idempotently in the constructor. Everything the
 * registry knows that is not the providers' own manifests: registration order, the last
 * loaded catalog, each provider's health view (from its shard), liveness, operators'
 * overrides and tool bundles, and what it last gave out (the publish rule's memory). Samples and breakers live
 * in the health shards (durable-objects/health-store.ts).
 */
import type { Trust } from "../src/contract.ts";
import type { ProviderLoad, RegistrySnapshot } from "../src/registry/catalog.ts";
import type { ProviderHealthView } from "../src/registry/health-view.ts";
import type { Published } from "../src/registry/publish-rule.ts";
import type { Bundle } from "../src/registry/bundles.ts";

export type Catalog = Pick<RegistrySnapshot, "providers" | "tools" | "problems">;

export interface ProviderOverride {
  trust?: Trust;
  disabled?: boolean;
  /** An operator's max_concurrency in place of the manifest's (docs/contract.md#waiting); null: the manifest's again. */
  max_concurrency?: number | null;
}

export type { DeprecationNotice as Deprecation } from "../src/registry/catalog.ts";
import type { DeprecationNotice as Deprecation } from "../src/registry/catalog.ts";

export class RegistryStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(`
      CREATE TABLE IF NOT EXISTS providers (name TEXT PRIMARY KEY, seq INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS catalog (id INTEGER PRIMARY KEY CHECK (id = 1), config_key TEXT NOT NULL, loaded_at INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      DROP TABLE IF EXISTS samples;
      DROP TABLE IF EXISTS breakers;
      CREATE TABLE IF NOT EXISTS edge_health (provider TEXT PRIMARY KEY, seq INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS liveness (provider TEXT PRIMARY KEY, dead_since INTEGER NOT NULL, reason TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS overrides (provider TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS deprecations (tool TEXT NOT NULL, version TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (tool, version));
      CREATE TABLE IF NOT EXISTS bundles (name TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tenant_bundles (tenant TEXT NOT NULL, name TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (tenant, name));
    `);
  }

  /** Registration order survives restarts: it is the last tie-break (docs/contract.md#ranking). */
  registrationSeq(name: string): number {
    const row = this.sql.exec<{ seq: number }>("SELECT seq FROM providers WHERE name = ?", name).toArray()[0];
    if (row) return row.seq;
    const next = (this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM providers").one().n ?? 0) + 1;
    this.sql.exec("INSERT INTO providers (name, seq) VALUES (?, ?)", name, next);
    return next;
  }

  /** The version edges see; bumped on every change so caches can tell old from new. */
  version(): number {
    return this.sql.exec<{ value: number }>("SELECT value FROM meta WHERE key = 'version'").toArray()[0]?.value ?? 0;
  }

  /**
   * Versions are milliseconds, one more than the last at least: a registry object whose storage
   * starts empty (a new namespace, a reset) begins above every version the one before it gave
   * out, so edges that hold those copies (their isolates, the data center's entry, the relays)
   * take its snapshots instead of keeping theirs as newer.
   */
  bumpVersion(): number {
    const next = Math.max(this.version() + 1, Date.now());
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES ('version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      next,
    );
    return next;
  }

  /** What the registry last gave out (src/registry/publish-rule.ts); undefined before its first answer. */
  published(): Published | undefined {
    const meta = this.#meta();
    const version = meta.get("published_version");
    const tools = meta.get("published_tools");
    return version === undefined || tools === undefined ? undefined : { version, tools };
  }

  savePublished(p: Published): void {
    this.#setMeta("published_version", p.version);
    this.#setMeta("published_tools", p.tools);
  }

  /** How many tools the latest completed load, or operator's removal, left: what it explains. */
  explainedTools(): number | undefined {
    return this.#meta().get("explained_tools");
  }

  saveExplainedTools(tools: number): void {
    if (this.explainedTools() !== tools) this.#setMeta("explained_tools", tools);
  }

  #meta(): Map<string, number> {
    return new Map(
      this.sql
        .exec<{ key: string; value: number }>("SELECT key, value FROM meta")
        .toArray()
        .map((r) => [r.key, r.value]),
    );
  }

  #setMeta(key: string, value: number): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  catalog(): { configKey: string; loadedAt: number; catalog: Catalog } | undefined {
    const row = this.sql
      .exec<{ config_key: string; loaded_at: number; body: string }>("SELECT config_key, loaded_at, body FROM catalog")
      .toArray()[0];
    return row ? { configKey: row.config_key, loadedAt: row.loaded_at, catalog: JSON.parse(row.body) } : undefined;
  }

  saveCatalog(configKey: string, loadedAt: number, catalog: Catalog): void {
    this.sql.exec(
      "INSERT INTO catalog (id, config_key, loaded_at, body) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET config_key = excluded.config_key, loaded_at = excluded.loaded_at, body = excluded.body",
      configKey,
      loadedAt,
      JSON.stringify(catalog),
    );
  }

  /** Each provider's health view, as its shard last sent it. */
  edgeHealth(): Map<string, ProviderHealthView> {
    const rows = this.sql.exec<{ provider: string; body: string }>("SELECT provider, body FROM edge_health").toArray();
    return new Map(rows.map((r) => [r.provider, JSON.parse(r.body)]));
  }

  saveEdgeHealth(view: ProviderHealthView): void {
    this.sql.exec(
      "INSERT INTO edge_health (provider, seq, body) VALUES (?, ?, ?) ON CONFLICT (provider) DO UPDATE SET seq = excluded.seq, body = excluded.body",
      view.provider,
      view.seq,
      JSON.stringify(view),
    );
  }

  dead(): Map<string, { since: number; reason: string }> {
    const rows = this.sql
      .exec<{ provider: string; dead_since: number; reason: string }>(
        "SELECT provider, dead_since, reason FROM liveness",
      )
      .toArray();
    return new Map(rows.map((r) => [r.provider, { since: r.dead_since, reason: r.reason }]));
  }

  markDead(provider: string, at: number, reason: string): boolean {
    if (this.dead().has(provider)) return false;
    this.sql.exec("INSERT INTO liveness (provider, dead_since, reason) VALUES (?, ?, ?)", provider, at, reason);
    return true;
  }

  /** Forgets what calls taught about a provider: its health view and liveness. */
  forgetHealth(provider: string): void {
    this.sql.exec("DELETE FROM edge_health WHERE provider = ?", provider);
    this.sql.exec("DELETE FROM liveness WHERE provider = ?", provider);
  }

  markAlive(provider: string): boolean {
    return this.sql.exec("DELETE FROM liveness WHERE provider = ?", provider).rowsWritten > 0;
  }

  overrides(): Map<string, ProviderOverride> {
    const rows = this.sql.exec<{ provider: string; body: string }>("SELECT provider, body FROM overrides").toArray();
    return new Map(rows.map((r) => [r.provider, JSON.parse(r.body)]));
  }

  saveOverride(provider: string, o: ProviderOverride): void {
    this.sql.exec(
      "INSERT INTO overrides (provider, body) VALUES (?, ?) ON CONFLICT (provider) DO UPDATE SET body = excluded.body",
      provider,
      JSON.stringify(o),
    );
  }

  deprecations(): Map<string, Deprecation> {
    const rows = this.sql
      .exec<{ tool: string; version: string; body: string }>("SELECT tool, version, body FROM deprecations")
      .toArray();
    return new Map(rows.map((r) => [`${r.tool}@${r.version}`, JSON.parse(r.body)]));
  }

  saveDeprecation(tool: string, version: string, d: Deprecation): void {
    this.sql.exec(
      "INSERT INTO deprecations (tool, version, body) VALUES (?, ?, ?) ON CONFLICT (tool, version) DO UPDATE SET body = excluded.body",
      tool,
      version,
      JSON.stringify(d),
    );
  }

  removeDeprecation(tool: string, version: string): void {
    this.sql.exec("DELETE FROM deprecations WHERE tool = ? AND version = ?", tool, version);
  }

  /** Operators' tool bundles (src/registry/bundles.ts), by name. */
  bundles(): Map<string, Bundle> {
    const rows = this.sql
      .exec<{ name: string; body: string }>("SELECT name, body FROM bundles ORDER BY name")
      .toArray();
    return new Map(rows.map((r) => [r.name, storedBundle(r.body)]));
  }

  saveBundle(bundle: Bundle): void {
    this.sql.exec(
      "INSERT INTO bundles (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body",
      bundle.name,
      JSON.stringify(bundle),
    );
  }

  /** True when there was such a bundle. */
  removeBundle(name: string): boolean {
    return this.sql.exec("DELETE FROM bundles WHERE name = ?", name).rowsWritten > 0;
  }

  /** One tenant's own tool bundles (its admins'), by name. */
  tenantBundles(tenant: string): Map<string, Bundle> {
    const rows = this.sql
      .exec<{ name: string; body: string }>(
        "SELECT name, body FROM tenant_bundles WHERE tenant = ? ORDER BY name",
        tenant,
      )
      .toArray();
    return new Map(rows.map((r) => [r.name, storedBundle(r.body)]));
  }

  /** Every tenant's own tool bundles, by tenant, then by name (the snapshot carries them). */
  allTenantBundles(): Map<string, Map<string, Bundle>> {
    const all = new Map<string, Map<string, Bundle>>();
    const rows = this.sql
      .exec<{ tenant: string; name: string; body: string }>(
        "SELECT tenant, name, body FROM tenant_bundles ORDER BY tenant, name",
      )
      .toArray();
    for (const r of rows) {
      const held = all.get(r.tenant) ?? new Map<string, Bundle>();
      held.set(r.name, storedBundle(r.body));
      all.set(r.tenant, held);
    }
    return all;
  }

  saveTenantBundle(tenant: string, bundle: Bundle): void {
    this.sql.exec(
      "INSERT INTO tenant_bundles (tenant, name, body) VALUES (?, ?, ?) ON CONFLICT (tenant, name) DO UPDATE SET body = excluded.body",
      tenant,
      bundle.name,
      JSON.stringify(bundle),
    );
  }

  /** True when the tenant had such a bundle. */
  removeTenantBundle(tenant: string, name: string): boolean {
    return this.sql.exec("DELETE FROM tenant_bundles WHERE tenant = ? AND name = ?", tenant, name).rowsWritten > 0;
  }
}

export type { ProviderLoad };

/**
 * A stored bundle as it is now: one stored before `discovery` existed lists its tools, as every
 * bundle did then; one stored before `tags` selects by none.
 */
function storedBundle(body: string): Bundle {
  return { discovery: "list", tags: [], ...(JSON.parse(body) as Partial<Bundle>) } as Bundle;
}
