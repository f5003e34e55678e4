/**
 * RegistryObject: the catalog of tools, versions and providers (AIOS §5.2), built from the
 * providers' live manifests. Edges read a cached, versioned snapshot (src/registry/
 * snapshot-cache.ts); this object is not on each call's path.
 *
 * When it reloads manifests: on first use, when the PROVIDERS config changes, when asked
 * (`refresh`), every MANIFEST_REFRESH_MS, and every few seconds while a provider is unreachable.
 */
import { DurableObject } from "cloudflare:workers";
import { loadConfig, providerBinding, type ProviderConfig } from "../src/config.ts";
import type { Env } from "../src/env.ts";
import { hasValidator } from "../src/pipeline/schema.ts";
import { buildCatalog, type ProviderLoad, type RegistrySnapshot } from "../src/registry/catalog.ts";
import { canonicalJson } from "../src/schema/schema-hash.ts";
import { withTimeout } from "../src/with-timeout.ts";
import type { ProviderManifest } from "../providers/sdk/protocol.ts";

const MANIFEST_TIMEOUT_MS = 5_000;
/** While a provider is unreachable, try it again this often rather than every MANIFEST_REFRESH_MS. */
const UNREACHABLE_RETRY_MS = 2_000;

interface StoredSnapshot {
  configKey: string;
  loadedAt: number;
  snapshot: RegistrySnapshot;
}

export class RegistryObject extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private current: StoredSnapshot | undefined;
  private loading: Promise<RegistrySnapshot> | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Registration order must survive restarts: it is the last tie-break (AIOS §5.2.1).
    this.sql.exec("CREATE TABLE IF NOT EXISTS providers (name TEXT PRIMARY KEY, seq INTEGER NOT NULL)");
    this.sql.exec("CREATE TABLE IF NOT EXISTS snapshot (id INTEGER PRIMARY KEY CHECK (id = 1), config_key TEXT NOT NULL, loaded_at INTEGER NOT NULL, body TEXT NOT NULL)");
    const row = this.sql.exec<{ config_key: string; loaded_at: number; body: string }>("SELECT config_key, loaded_at, body FROM snapshot").toArray()[0];
    if (row) this.current = { configKey: row.config_key, loadedAt: row.loaded_at, snapshot: JSON.parse(row.body) };
  }

  /** The current snapshot, reloading manifests first when it is due. */
  async snapshot(): Promise<RegistrySnapshot> {
    const config = loadConfig(this.env);
    const configKey = canonicalJson(config.providers);
    const cur = this.current;
    const age = cur ? Date.now() - cur.loadedAt : Infinity;
    const due =
      !cur ||
      cur.configKey !== configKey ||
      age > config.manifestRefreshMs ||
      (cur.snapshot.providers.some((p) => !p.reachable) && age > UNREACHABLE_RETRY_MS);
    return due ? this.reload() : cur.snapshot;
  }

  /** Re-reads every provider's manifest now (operators; deploy hooks). */
  async refresh(): Promise<RegistrySnapshot> {
    return this.reload();
  }

  private reload(): Promise<RegistrySnapshot> {
    // Concurrent callers share one reload.
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<RegistrySnapshot> {
    const config = loadConfig(this.env);
    const loads = await Promise.all(config.providers.map((p) => this.loadProvider(p)));
    const built = await buildCatalog(loads, (hash) => hasValidator(hash));
    const previous = this.current?.snapshot;
    const changed = !previous || canonicalJson({ ...built }) !== canonicalJson({ providers: previous.providers, tools: previous.tools, problems: previous.problems });
    const now = Date.now();
    const snapshot: RegistrySnapshot = {
      version: changed ? (previous?.version ?? 0) + 1 : previous!.version,
      built_at: changed ? now : previous!.built_at,
      ...built,
    };
    for (const problem of built.problems) console.warn(JSON.stringify({ msg: "registry problem", problem }));
    const configKey = canonicalJson(config.providers);
    this.current = { configKey, loadedAt: now, snapshot };
    this.sql.exec(
      "INSERT INTO snapshot (id, config_key, loaded_at, body) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET config_key = excluded.config_key, loaded_at = excluded.loaded_at, body = excluded.body",
      configKey,
      now,
      JSON.stringify(snapshot),
    );
    return snapshot;
  }

  private async loadProvider(config: ProviderConfig): Promise<ProviderLoad> {
    const seq = this.registrationSeq(config.name);
    const service = providerBinding(this.env, config);
    if (!service || typeof service.manifest !== "function") {
      return { config, seq, error: `no service binding ${config.binding}` };
    }
    try {
      const manifest = await withTimeout<ProviderManifest>(service.manifest(), MANIFEST_TIMEOUT_MS, `manifest() took over ${MANIFEST_TIMEOUT_MS} ms`);
      if (!manifest || !Array.isArray(manifest.tools)) return { config, seq, error: "manifest() returned no tool list" };
      return { config, seq, manifest };
    } catch (err) {
      return { config, seq, error: `manifest() failed: ${(err as Error).message}` };
    }
  }

  private registrationSeq(name: string): number {
    const row = this.sql.exec<{ seq: number }>("SELECT seq FROM providers WHERE name = ?", name).toArray()[0];
    if (row) return row.seq;
    const next = this.sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM providers").one().n ?? 0;
    this.sql.exec("INSERT INTO providers (name, seq) VALUES (?, ?)", name, next + 1);
    return next + 1;
  }
}
