/**
 * RegistryObject: the catalog of tools, versions and providers (AIOS §5.2), built from the
 * providers' live manifests, plus what real executions taught it: latency and error rates,
 * circuit breakers (AIOS §6.4) and liveness. Edges read a cached, versioned snapshot
 * (src/registry/snapshot-cache.ts); this object is not on each call's path. Execution
 * objects report to it in batches, and at once only for failures and breaker trials.
 *
 * Manifests are re-read on first use, when the PROVIDERS config changes, when an operator
 * asks (`refresh`), every MANIFEST_REFRESH_MS, and every 2 s while a provider is unreachable
 * or has been dead longer than LIVENESS_PROBE_MS.
 */
import { DurableObject } from "cloudflare:workers";
import { loadConfig, providerBinding, type ProviderConfig } from "../src/config.ts";
import { hasValidator } from "../src/pipeline/schema.ts";
import { buildCatalog, healthKey, type OfferingHealth, type ProviderLoad, type RegistrySnapshot } from "../src/registry/catalog.ts";
import { composeSnapshot } from "../src/registry/compose.ts";
import { breakerView, DEFAULT_BREAKER, healthStats, nextBreaker, type BreakerPolicy, type DeadReport, type Sample } from "../src/registry/provider-health.ts";
import { canonicalJson } from "../src/schema/schema-hash.ts";
import { withTimeout } from "../src/with-timeout.ts";
import type { ProviderManifest, Value } from "../providers/sdk/protocol.ts";
import { RegistryStore, type Catalog, type Deprecation, type ProviderOverride } from "./registry-store.ts";
import { UpstreamRegistry } from "./upstream-registry.ts";
import type { Outcome } from "../src/contract.ts";
import type { UpstreamConfig } from "../src/upstreams/config.ts";
import type { UpstreamView } from "../src/upstreams/view.ts";

const MANIFEST_TIMEOUT_MS = 5_000;
/** While a provider is unreachable, try it again this often rather than every MANIFEST_REFRESH_MS. */
const UNREACHABLE_RETRY_MS = 2_000;
/** A dead provider is skipped at least this long before its answering manifest revives it. */
export const LIVENESS_PROBE_MS = 30_000;
/** Calls in a row that could not reach a provider's Worker before it is called dead. */
export const DEAD_AFTER_TRANSPORT_FAILURES = 3;
/** How often the dead are probed again, by the registry's alarm, until they answer. */
export const PROBE_EVERY_MS = 10_000;

export class RegistryObject extends DurableObject<Env> {
  readonly #store: RegistryStore;
  /** Upstream MCP servers (issue 17): their registrations, pins and listings. */
  readonly #upstreams: UpstreamRegistry;
  /** Unreachable calls in a row, per provider (in memory: a restart forgives them). */
  readonly #strikes = new Map<string, number>();
  #composed: RegistrySnapshot | undefined;
  #loading: Promise<void> | undefined;
  /** The registry's notion of now; tests replace it to step through breaker cooldowns. */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RegistryStore(ctx.storage.sql);
    this.#upstreams = new UpstreamRegistry(ctx.storage.sql, env, () => this.clock());
  }

  /** The current snapshot, reloading manifests first when that is due. */
  async snapshot(): Promise<RegistrySnapshot> {
    if (this.#reloadDue()) await this.#reload();
    return this.#compose();
  }

  /** Re-reads every provider's manifest now (operators; deploy hooks). */
  async refresh(): Promise<RegistrySnapshot> {
    await this.#reload();
    return this.#compose();
  }

  /**
   * Outcomes of real calls, and the calls whose provider Worker could not be reached. A
   * provider is dead after DEAD_AFTER_TRANSPORT_FAILURES such calls in a row (one failed call
   * is one failed call); any good call resets the count. Returns the new version.
   */
  async report(samples: Sample[], unreachable: DeadReport[] = []): Promise<number> {
    const now = this.clock();
    for (const sample of samples) if (sample.ok) this.#strikes.delete(sample.provider);
    for (const d of unreachable) {
      const strikes = (this.#strikes.get(d.provider) ?? 0) + 1;
      this.#strikes.set(d.provider, strikes);
      if (strikes >= DEAD_AFTER_TRANSPORT_FAILURES && this.#store.markDead(d.provider, d.at, d.reason)) {
        this.#strikes.delete(d.provider);
        await this.#probeLater();
      }
    }
    for (const sample of samples) {
      this.#store.addSample(sample);
      const before = this.#store.breaker(sample.provider, sample.tool);
      const after = nextBreaker(before, sample, this.#store.samples(sample.provider, sample.tool), this.#policyFor(sample.provider, sample.tool), now);
      if (after !== before) this.#store.saveBreaker(sample.provider, sample.tool, after);
    }
    return this.#changed();
  }

  /**
   * AIOS §5.2 liveness: the dead come back by themselves. While a provider is dead (or its
   * manifest did not answer), the registry re-reads the manifests every PROBE_EVERY_MS; one
   * that answers, dead for at least LIVENESS_PROBE_MS, is alive again — no operator needed.
   */
  async alarm(): Promise<void> {
    await this.#reload();
    await this.#probeLater();
  }

  /**
   * AIOS §6.4 half-open: the first caller to ask after the cooldown gets the one trial call;
   * everyone else keeps skipping the provider until the trial's outcome is reported.
   */
  async acquireTrial(provider: string, tool: string): Promise<boolean> {
    const now = this.clock();
    const b = this.#store.breaker(provider, tool);
    const view = breakerView(b, now);
    // Closed already (an edge's snapshot was behind): the provider may simply be called.
    if (view === "closed") return true;
    if (view !== "half_open") return false;
    // A trial whose outcome never came (its execution died) is given out again after a cooldown.
    if (b.trial_at !== undefined && now - b.trial_at < this.#policyFor(provider, tool).cooldown_ms) return false;
    this.#store.saveBreaker(provider, tool, { ...b, trial_at: now });
    this.#changed();
    return true;
  }

  /** A granted trial that never reached its provider: the next caller may take it at once. */
  async returnTrial(provider: string, tool: string): Promise<void> {
    const b = this.#store.breaker(provider, tool);
    if (b.trial_at === undefined) return;
    const { trial_at: _, ...rest } = b;
    this.#store.saveBreaker(provider, tool, rest);
    this.#changed();
  }

  /** Operator: change a provider's trust or disable it, at run time. */
  async setProvider(name: string, patch: ProviderOverride): Promise<RegistrySnapshot | undefined> {
    if (!this.#known(name)) return undefined;
    this.#store.saveOverride(name, { ...this.#store.overrides().get(name), ...patch });
    this.#changed();
    return this.#compose();
  }

  /**
   * Operator: forget a provider's statistics, breakers and liveness (after fixing it, say), so
   * the next calls judge it afresh. Undefined when no such provider is configured.
   */
  async resetHealth(name: string): Promise<RegistrySnapshot | undefined> {
    if (!this.#known(name)) return undefined;
    this.#store.forgetHealth(name);
    this.#changed();
    return this.#compose();
  }

  /** Operator: deprecate a tool version with a sunset and a replacement, or lift it (null). */
  async deprecate(tool: string, version: string, deprecation: Deprecation | null): Promise<RegistrySnapshot | undefined> {
    await this.snapshot();
    if (!this.#catalog()?.tools[tool]?.versions[version]) return undefined;
    if (deprecation) this.#store.saveDeprecation(tool, version, deprecation);
    else this.#store.removeDeprecation(tool, version);
    this.#changed();
    return this.#compose();
  }

  // ── upstream MCP servers (issue 17) ─────────────────────────────────────────────────

  /** Operator: every upstream, as the admin API shows it. */
  async upstreams(): Promise<UpstreamView[]> {
    await this.snapshot();
    return this.#upstreams.all().map((u) => this.#upstreamView(u.name)!);
  }

  async upstream(name: string): Promise<UpstreamView | undefined> {
    await this.snapshot();
    return this.#upstreamView(name);
  }

  /** Operator: registers an upstream and lists it at once; the answer says what it serves. */
  async registerUpstream(raw: UpstreamConfig | Record<string, Value>): Promise<Outcome<UpstreamView>> {
    const registered = this.#upstreams.register(raw);
    if (!registered.ok) return registered;
    await this.#reload();
    return { ok: true, value: this.#upstreamView(registered.value.name)! };
  }

  async removeUpstream(name: string): Promise<Outcome<{ name: string }>> {
    const removed = this.#upstreams.remove(name);
    if (removed.ok) await this.#reload();
    return removed;
  }

  /** Operator: lists one upstream now (the whole catalog is reloaded: one catalog, one version). */
  async refreshUpstream(name: string): Promise<UpstreamView | undefined> {
    if (!this.#upstreams.find(name)) return undefined;
    await this.#reload();
    return this.#upstreamView(name);
  }

  /** Operator: approves a changed definition by its hash; it serves from the next listing, done now. */
  async approveUpstreamChange(name: string, tool: string, hash: string): Promise<Outcome<UpstreamView>> {
    const approved = this.#upstreams.approve(name, tool, hash);
    if (!approved.ok) return approved;
    await this.#reload();
    return { ok: true, value: this.#upstreamView(name)! };
  }

  /** Definitions waiting for an operator, for /metrics. */
  async upstreamChanges(): Promise<{ upstream: string; tool: string; seen_at: number }[]> {
    return [...this.#upstreams.store.pending().values()].map((c) => ({ upstream: c.upstream, tool: c.tool, seen_at: c.seen_at }));
  }

  #upstreamView(name: string): UpstreamView | undefined {
    const served = Object.values(this.#catalog()?.tools ?? {})
      .filter((t) => Object.values(t.versions).some((os) => os.some((o) => o.provider === name)))
      .map((t) => t.name);
    return this.#upstreams.view(name, served);
  }

  #known(name: string): boolean {
    return loadConfig(this.env).providers.some((p) => p.name === name) || this.#upstreams.find(name) !== undefined;
  }

  #catalog(): Catalog | undefined {
    return this.#store.catalog()?.catalog;
  }

  #changed(): number {
    this.#composed = undefined;
    return this.#store.bumpVersion();
  }

  #compose(): RegistrySnapshot {
    if (this.#composed) return this.#composed;
    const health: Record<string, OfferingHealth> = {};
    for (const { provider, tool } of this.#store.sampleKeys()) {
      health[healthKey(provider, tool)] = {
        ...healthStats(this.#store.samples(provider, tool)),
        breaker: this.#store.breaker(provider, tool),
        policy: this.#policyFor(provider, tool),
      };
    }
    this.#composed = composeSnapshot({
      version: this.#store.version(),
      built_at: this.clock(),
      catalog: this.#catalog() ?? { providers: [], tools: {}, problems: [] },
      overrides: this.#store.overrides(),
      dead: this.#store.dead(),
      health,
      deprecations: this.#store.deprecations(),
      now: this.clock(),
    });
    return this.#composed;
  }

  #policyFor(provider: string, tool: string): BreakerPolicy {
    const offering = Object.values(this.#catalog()?.tools[tool]?.versions ?? {})
      .flat()
      .find((o) => o.provider === provider);
    return { ...DEFAULT_BREAKER, ...(offering?.manifest.breaker ?? {}) };
  }

  /** Schedules the next liveness probe while any provider is dead or unreachable. */
  async #probeLater(): Promise<void> {
    const needed = this.#store.dead().size > 0 || (this.#store.catalog()?.catalog.providers.some((p) => !p.reachable) ?? false);
    if (needed && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + PROBE_EVERY_MS);
  }

  #reloadDue(): boolean {
    const config = loadConfig(this.env);
    const stored = this.#store.catalog();
    if (!stored || stored.configKey !== this.#configKey()) return true;
    const age = this.clock() - stored.loadedAt;
    if (age > config.manifestRefreshMs) return true;
    if (age <= UNREACHABLE_RETRY_MS) return false;
    const deadLongEnough = [...this.#store.dead().values()].some((d) => this.clock() - d.since >= LIVENESS_PROBE_MS);
    return deadLongEnough || stored.catalog.providers.some((p) => !p.reachable);
  }

  #reload(): Promise<void> {
    // Concurrent callers share one reload.
    this.#loading ??= this.#load().finally(() => (this.#loading = undefined));
    return this.#loading;
  }

  /** What the catalog was loaded from: PROVIDERS, and the upstreams when there are any. */
  #configKey(): string {
    return canonicalJson(loadConfig(this.env).providers) + this.#upstreams.configKey();
  }

  async #load(): Promise<void> {
    const config = loadConfig(this.env);
    // Providers first, then upstreams: each takes its registration number when its load starts,
    // and that number orders the catalog (deploy configuration before the admin API's).
    const providerLoads = Promise.all(config.providers.map((p) => this.#loadProvider(p)));
    const upstreamLoads = await Promise.all(this.#upstreams.all().map((u) => this.#loadUpstream(u)));
    const loads = [...(await providerLoads), ...upstreamLoads];
    const now = this.clock();
    let revived = false;
    for (const load of loads) {
      const dead = this.#store.dead().get(load.config.name);
      if (load.manifest && !load.error && dead && now - dead.since >= LIVENESS_PROBE_MS) revived = this.#store.markAlive(load.config.name) || revived;
    }
    const catalog = await buildCatalog(loads, (hash) => hasValidator(hash));
    catalog.problems.push(...upstreamLoads.flatMap((l) => l.problems));
    for (const problem of catalog.problems) console.warn(JSON.stringify({ msg: "registry problem", problem }));
    const previous = this.#catalog();
    this.#store.saveCatalog(this.#configKey(), now, catalog);
    if (revived || !previous || canonicalJson(previous) !== canonicalJson(catalog)) this.#changed();
    else this.#composed = undefined;
    await this.#probeLater();
  }

  async #loadProvider(config: ProviderConfig): Promise<ProviderLoad> {
    const seq = this.#store.registrationSeq(config.name);
    const service = providerBinding(this.env, config);
    let error: string;
    try {
      if (!service || typeof service.manifest !== "function") throw new Error(`no service binding ${config.binding}`);
      const manifest = await withTimeout<ProviderManifest>(service.manifest(), MANIFEST_TIMEOUT_MS, `manifest() took over ${MANIFEST_TIMEOUT_MS} ms`);
      if (!manifest || !Array.isArray(manifest.tools)) throw new Error("manifest() returned no tool list");
      return { config, seq, manifest };
    } catch (err) {
      error = `manifest() failed: ${(err as Error).message}`;
    }
    // A provider that stops answering keeps its last known offerings, marked dead, so that
    // ranking skips it instead of forgetting it (AIOS §5.2 liveness).
    const last = this.#lastKnownManifest(config.name);
    if (last) {
      this.#store.markDead(config.name, this.clock(), error);
      return { config, seq, manifest: last, error };
    }
    return { config, seq, error };
  }

  async #loadUpstream(upstream: UpstreamConfig) {
    const seq = this.#store.registrationSeq(upstream.name);
    const lastKnown = Object.values(this.#catalog()?.tools ?? {})
      .flatMap((t) => Object.values(t.versions).flat())
      .filter((o) => o.provider === upstream.name && o.upstream !== undefined);
    const load = await this.#upstreams.load(upstream, seq, lastKnown);
    // As for a provider whose manifest stops answering: the last known tools, marked dead.
    if (load.error && load.manifest) this.#store.markDead(upstream.name, this.clock(), load.error);
    return load;
  }

  #lastKnownManifest(provider: string): ProviderManifest | undefined {
    const tools = Object.values(this.#catalog()?.tools ?? {})
      .flatMap((t) => Object.values(t.versions).flat())
      .filter((o) => o.provider === provider)
      .map((o) => o.manifest);
    return tools.length > 0 ? { provider, sdk_version: "last known", tools } : undefined;
  }
}
