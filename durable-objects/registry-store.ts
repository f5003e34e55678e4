/**
 * The registry object's SQLite tables, set up idempotently (STYLE.md 6). Everything the
 * registry knows that is not the providers' own manifests: registration order, the last
 * loaded catalog, health samples, breakers, liveness and operators' overrides.
 */
import type { Trust } from "../src/contract.ts";
import type { ProviderLoad, RegistrySnapshot } from "../src/registry/catalog.ts";
import { CLOSED, type BreakerRecord, type Sample } from "../src/registry/provider-health.ts";

/** Samples kept per provider and tool: enough for a stable p50, small enough to scan. */
export const SAMPLES_KEPT = 200;

export type Catalog = Pick<RegistrySnapshot, "providers" | "tools" | "problems">;

export interface ProviderOverride {
  trust?: Trust;
  disabled?: boolean;
  /** An operator's max_concurrency in place of the manifest's (issue 15); null: the manifest's again. */
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
      CREATE TABLE IF NOT EXISTS samples (provider TEXT NOT NULL, tool TEXT NOT NULL, at INTEGER NOT NULL, latency_ms REAL NOT NULL, ok INTEGER NOT NULL);
      CREATE INDEX IF NOT EXISTS samples_by_key ON samples (provider, tool, at);
      CREATE TABLE IF NOT EXISTS breakers (provider TEXT NOT NULL, tool TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (provider, tool));
      CREATE TABLE IF NOT EXISTS liveness (provider TEXT PRIMARY KEY, dead_since INTEGER NOT NULL, reason TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS overrides (provider TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS deprecations (tool TEXT NOT NULL, version TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (tool, version));
    `);
  }

  /** Registration order survives restarts: it is the last tie-break (AIOS §5.2.1). */
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

  bumpVersion(): number {
    const next = this.version() + 1;
    this.sql.exec("INSERT INTO meta (key, value) VALUES ('version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", next);
    return next;
  }

  catalog(): { configKey: string; loadedAt: number; catalog: Catalog } | undefined {
    const row = this.sql.exec<{ config_key: string; loaded_at: number; body: string }>("SELECT config_key, loaded_at, body FROM catalog").toArray()[0];
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

  addSample(s: Sample): void {
    this.sql.exec("INSERT INTO samples (provider, tool, at, latency_ms, ok) VALUES (?, ?, ?, ?, ?)", s.provider, s.tool, s.at, s.latency_ms, s.ok ? 1 : 0);
  }

  /** The newest samples of one offering, oldest first; older ones are deleted. */
  samples(provider: string, tool: string): Sample[] {
    this.sql.exec(
      "DELETE FROM samples WHERE provider = ? AND tool = ? AND rowid NOT IN (SELECT rowid FROM samples WHERE provider = ? AND tool = ? ORDER BY at DESC LIMIT ?)",
      provider, tool, provider, tool, SAMPLES_KEPT,
    );
    return this.sql
      .exec<{ at: number; latency_ms: number; ok: number }>("SELECT at, latency_ms, ok FROM samples WHERE provider = ? AND tool = ? ORDER BY at, rowid", provider, tool)
      .toArray()
      .map((r) => ({ provider, tool, at: r.at, latency_ms: r.latency_ms, ok: r.ok === 1 }));
  }

  sampleKeys(): { provider: string; tool: string }[] {
    return this.sql.exec<{ provider: string; tool: string }>("SELECT DISTINCT provider, tool FROM samples").toArray();
  }

  breaker(provider: string, tool: string): BreakerRecord {
    const row = this.sql.exec<{ body: string }>("SELECT body FROM breakers WHERE provider = ? AND tool = ?", provider, tool).toArray()[0];
    return row ? JSON.parse(row.body) : CLOSED;
  }

  saveBreaker(provider: string, tool: string, b: BreakerRecord): void {
    this.sql.exec(
      "INSERT INTO breakers (provider, tool, body) VALUES (?, ?, ?) ON CONFLICT (provider, tool) DO UPDATE SET body = excluded.body",
      provider, tool, JSON.stringify(b),
    );
  }

  dead(): Map<string, { since: number; reason: string }> {
    const rows = this.sql.exec<{ provider: string; dead_since: number; reason: string }>("SELECT provider, dead_since, reason FROM liveness").toArray();
    return new Map(rows.map((r) => [r.provider, { since: r.dead_since, reason: r.reason }]));
  }

  markDead(provider: string, at: number, reason: string): boolean {
    if (this.dead().has(provider)) return false;
    this.sql.exec("INSERT INTO liveness (provider, dead_since, reason) VALUES (?, ?, ?)", provider, at, reason);
    return true;
  }

  /** Forgets what calls taught about a provider: its samples, breakers and liveness. */
  forgetHealth(provider: string): void {
    this.sql.exec("DELETE FROM samples WHERE provider = ?", provider);
    this.sql.exec("DELETE FROM breakers WHERE provider = ?", provider);
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
    this.sql.exec("INSERT INTO overrides (provider, body) VALUES (?, ?) ON CONFLICT (provider) DO UPDATE SET body = excluded.body", provider, JSON.stringify(o));
  }

  deprecations(): Map<string, Deprecation> {
    const rows = this.sql.exec<{ tool: string; version: string; body: string }>("SELECT tool, version, body FROM deprecations").toArray();
    return new Map(rows.map((r) => [`${r.tool}@${r.version}`, JSON.parse(r.body)]));
  }

  saveDeprecation(tool: string, version: string, d: Deprecation): void {
    this.sql.exec(
      "INSERT INTO deprecations (tool, version, body) VALUES (?, ?, ?) ON CONFLICT (tool, version) DO UPDATE SET body = excluded.body",
      tool, version, JSON.stringify(d),
    );
  }

  removeDeprecation(tool: string, version: string): void {
    this.sql.exec("DELETE FROM deprecations WHERE tool = ? AND version = ?", tool, version);
  }
}

export type { ProviderLoad };
