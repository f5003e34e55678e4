/**
 * The registry's catalog as held, loaded and given out: reloaded when due (registry-liveness.ts),
 * one load at a time, from the providers' manifests and the upstreams' listings
 * (registry-manifests.ts); composed into a snapshot once per change; answered only when the
 * publish rule (registry-publisher.ts) lets it out.
 */
import { loadConfig } from "../src/config.ts";
import { hasValidator } from "../src/pipeline/schema.ts";
import { buildCatalog, type RegistrySnapshot } from "../src/registry/catalog.ts";
import type { ProviderHealthView } from "../src/registry/health-view.ts";
import { canonicalJson } from "../src/schema/schema-hash.ts";
import { PROBE_EVERY_MS, probeNeeded, reloadDue, reviveAnswering } from "./registry-liveness.ts";
import { loadProvider, loadUpstream, type LoadContext } from "./registry-manifests.ts";
import { RegistryPublisher } from "./registry-publisher.ts";
import { composeFromStore } from "./registry-snapshot.ts";
import type { Catalog, RegistryStore } from "./registry-store.ts";
import type { UpstreamRegistry } from "./upstream-registry.ts";

export interface RegistryCatalogParts {
  env: Env;
  storage: DurableObjectStorage;
  store: RegistryStore;
  upstreams: UpstreamRegistry;
  /** The registry's name: the publish rule's log lines say which registry held a snapshot back. */
  name: string;
  /** The registry's notion of now (tests replace the object's clock). */
  clock: () => number;
  /** A revived provider's health shard forgets its own verdict too; its view is kept. */
  revive: (provider: string) => Promise<ProviderHealthView>;
}

export class RegistryCatalog {
  readonly #parts: RegistryCatalogParts;
  readonly #store: RegistryStore;
  readonly #publisher: RegistryPublisher;
  #composed: RegistrySnapshot | undefined;
  #loading: Promise<void> | undefined;
  /** A reload queued behind the one in flight, for callers that changed something meanwhile. */
  #next: Promise<void> | undefined;

  constructor(parts: RegistryCatalogParts) {
    this.#parts = parts;
    this.#store = parts.store;
    this.#publisher = new RegistryPublisher(parts.store, parts.name);
  }

  /** Whether a catalog is loaded for the configuration as it is now. */
  loadedForConfig(): boolean {
    const stored = this.#store.catalog();
    return stored !== undefined && stored.configKey === this.#configKey();
  }

  /** The current snapshot, reloading manifests first when that is due. */
  async snapshot(): Promise<RegistrySnapshot> {
    if (this.#reloadDue()) await this.reload();
    return this.answer();
  }

  catalog(): Catalog | undefined {
    return this.#store.catalog()?.catalog;
  }

  /** Something a snapshot shows changed: a new version, composed afresh. */
  changed(): number {
    this.#composed = undefined;
    return this.#store.bumpVersion();
  }

  /** Something a snapshot shows changed without a new version (a health view the edge need not know): composed afresh. */
  recompose(): void {
    this.#composed = undefined;
  }

  /** The snapshot to answer: the current one when the publish rule lets it out. */
  async answer(): Promise<RegistrySnapshot> {
    const given = this.#publisher.give(this.#compose());
    if (given) return given;
    // Held back, and this instance has given nothing out since it started: a completed load
    // explains what it finds, so the answer is what the providers serve now.
    await this.reload();
    const loaded = this.#publisher.give(this.#compose());
    if (!loaded) throw new Error("the registry's snapshot was held back after a completed load");
    return loaded;
  }

  #compose(): RegistrySnapshot {
    this.#composed ??= composeFromStore(this.#store, this.#parts.clock);
    return this.#composed;
  }

  /** Schedules the next liveness probe while any provider is dead or unreachable. */
  async probeLater(): Promise<void> {
    const storage = this.#parts.storage;
    if (probeNeeded(this.#store) && (await storage.getAlarm()) === null)
      await storage.setAlarm(Date.now() + PROBE_EVERY_MS);
  }

  #reloadDue(): boolean {
    const config = loadConfig(this.#parts.env);
    return reloadDue(this.#store, {
      configKey: () => this.#configKey(),
      manifestRefreshMs: config.manifestRefreshMs,
      clock: this.#parts.clock,
    });
  }

  reload(): Promise<void> {
    // Concurrent callers share one reload.
    this.#loading ??= this.#load().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  /**
   * A reload that sees every change made before the call (an upstream registered, a definition
   * approved, an operator's refresh): a reload already in flight may have read the store before
   * the change, so such a caller waits for it and then for one that starts after it (shared by
   * every caller that came meanwhile).
   */
  reloadWithChanges(): Promise<void> {
    const inFlight = this.#loading;
    if (!inFlight) return this.reload();
    this.#next ??= inFlight
      .catch(() => {})
      .then(() => {
        this.#next = undefined;
        return this.reload();
      });
    return this.#next;
  }

  /** What the catalog was loaded from: PROVIDERS, and the upstreams when there are any. */
  #configKey(): string {
    return canonicalJson(loadConfig(this.#parts.env).providers) + this.#parts.upstreams.configKey();
  }

  async #load(): Promise<void> {
    const { env, upstreams, clock } = this.#parts;
    const config = loadConfig(env);
    // Providers first, then upstreams: each takes its registration number when its load starts,
    // and that number orders the catalog (deploy configuration before the admin API's).
    const at: LoadContext = { store: this.#store, catalog: () => this.catalog(), clock };
    const providerLoads = Promise.all(config.providers.map((p) => loadProvider(env, at, p)));
    const upstreamLoads = await Promise.all(upstreams.all().map((u) => loadUpstream(upstreams, at, u)));
    const loads = [...(await providerLoads), ...upstreamLoads];
    const now = clock();
    const revived = await reviveAnswering(this.#store, loads, now, this.#parts.revive);
    const catalog = await buildCatalog(loads, (hash) => hasValidator(hash));
    catalog.problems.push(...upstreamLoads.flatMap((l) => l.problems));
    for (const problem of catalog.problems) console.warn(JSON.stringify({ msg: "registry problem", problem }));
    const previous = this.catalog();
    this.#store.saveCatalog(this.#configKey(), now, catalog);
    if (revived || !previous || canonicalJson(previous) !== canonicalJson(catalog)) this.changed();
    else this.#composed = undefined;
    // A completed load explains what it found, fewer tools included (the publish rule).
    this.#store.saveExplainedTools(Object.keys(catalog.tools).length);
    await this.probeLater();
  }
}
