/**
 * RegistryObject: the catalog of tools, versions and providers (docs/contract.md#resolution), built from the
 * providers' live manifests, plus what real executions taught: latency and error rates,
 * circuit breakers (docs/contract.md#circuit-breakers) and liveness. Edges read a cached, versioned snapshot
 * (src/registry/snapshot-cache.ts: isolate, data center, then this object); this object is
 * not on each call's path. Outcomes go to each provider's health shard (HealthObject), which
 * owns the breakers and trials and sends this object the provider's health view only when
 * what the edge must know changes (applyHealth); the version moves only then.
 *
 * Manifests are re-read when the object starts without a catalog loaded for its configuration
 * (before it takes any request: see the constructor), when the PROVIDERS config changes, when
 * an operator asks (`refresh`), every MANIFEST_REFRESH_MS, and every 2 s while a provider is
 * unreachable or has been dead longer than LIVENESS_PROBE_MS. Every snapshot it answers passes
 * the publish rule (registry-publisher.ts): it never gives out fewer tools than last time
 * unless a completed load or an operator's removal explains it.
 */
import { DurableObject } from "cloudflare:workers";
import { loadConfig, providerBinding, type ProviderConfig } from "../src/config.ts";
import { hasValidator } from "../src/pipeline/schema.ts";
import {
  buildCatalog,
  healthKey,
  type OfferingHealth,
  type ProviderLoad,
  type RegistrySnapshot,
} from "../src/registry/catalog.ts";
import { composeSnapshot } from "../src/registry/compose.ts";
import { healthStub, REGISTRY_NAME } from "../src/object-stubs.ts";
import { policyOf, viewDigest, type ProviderHealthView } from "../src/registry/health-view.ts";
import { DEFAULT_BREAKER, type BreakerPolicy, type DeadReport, type Sample } from "../src/registry/provider-health.ts";
import { canonicalJson } from "../src/schema/schema-hash.ts";
import { withTimeout } from "../src/with-timeout.ts";
import type { ProviderManifest, Value } from "../providers/sdk/protocol.ts";
import { RegistryPublisher } from "./registry-publisher.ts";
import { RegistryStore, type Catalog, type Deprecation, type ProviderOverride } from "./registry-store.ts";
import { UpstreamRegistry } from "./upstream-registry.ts";
import { BootstrapClaim, type BootstrapUse } from "./bootstrap-claim.ts";
import { ReportKey } from "./report-key.ts";
import type { Outcome } from "../src/contract.ts";
import type { UpstreamConfig } from "../src/upstreams/config.ts";
import type { UpstreamView } from "../src/upstreams/view.ts";

const MANIFEST_TIMEOUT_MS = 5_000;
/** While a provider is unreachable, try it again this often rather than every MANIFEST_REFRESH_MS. */
const UNREACHABLE_RETRY_MS = 2_000;
/** A dead provider is skipped at least this long before its answering manifest revives it. */
export const LIVENESS_PROBE_MS = 30_000;
export { DEAD_AFTER_TRANSPORT_FAILURES } from "../src/registry/health-shard.ts";
/** How often the dead are probed again, by the registry's alarm, until they answer. */
export const PROBE_EVERY_MS = 10_000;

export class RegistryObject extends DurableObject<Env> {
  readonly #store: RegistryStore;
  /** Upstream MCP servers (docs/contract.md#upstreams): their registrations, pins and listings. */
  readonly #upstreams: UpstreamRegistry;
  readonly #publisher: RegistryPublisher;
  /** Whether the operator bootstrap was used (src/routes/bootstrap.ts): the deployment's one global fact of its kind. */
  readonly #bootstrap: BootstrapClaim;
  readonly #reportKey: ReportKey;
  #composed: RegistrySnapshot | undefined;
  #loading: Promise<void> | undefined;
  /** The registry's notion of now; tests replace it to step through breaker cooldowns. */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RegistryStore(ctx.storage.sql);
    this.#upstreams = new UpstreamRegistry(ctx.storage.sql, env, () => this.clock());
    this.#bootstrap = new BootstrapClaim(ctx.storage.sql);
    this.#reportKey = new ReportKey(ctx.storage.sql);
    this.#publisher = new RegistryPublisher(this.#store, ctx.id.name ?? REGISTRY_NAME);
    // The cold-start rule: a registry without a catalog loaded for its configuration loads the
    // providers' manifests before it takes any request. An operator's change applied to a
    // catalog never loaded composes an empty snapshot, and edges take the newest version they
    // are given: every tool would be tool_not_found everywhere until the copies expire. Done
    // here rather than by a line at the top of each method: the runtime delivers no RPC call,
    // alarm or fetch to the object until this promise settles, so a method added later cannot
    // forget it. If the load throws, the object is reset and the next request loads again.
    void ctx.blockConcurrencyWhile(async () => {
      const stored = this.#store.catalog();
      if (!stored || stored.configKey !== this.#configKey()) await this.#reload();
    });
  }

  async bootstrapUsed(): Promise<BootstrapUse | undefined> {
    return this.#bootstrap.used();
  }

  /** The key of CPU reports' nonces (src/audit/report-nonce.ts); runtime code only, never an answer to a caller. */
  async reportKey(): Promise<string> {
    return this.#reportKey.get();
  }

  /** True for the first claim ever, false for every later one. */
  async claimBootstrap(use: BootstrapUse): Promise<boolean> {
    return this.#bootstrap.claim(use);
  }

  /** The current snapshot, reloading manifests first when that is due. */
  async snapshot(): Promise<RegistrySnapshot> {
    if (this.#reloadDue()) await this.#reload();
    return this.#answer();
  }

  /** Re-reads every provider's manifest now (operators; deploy hooks). */
  async refresh(): Promise<RegistrySnapshot> {
    await this.#reload();
    return this.#answer();
  }

  /**
   * Outcomes of real calls, and the calls whose provider Worker could not be reached, handed
   * to each provider's health shard (edges send them there themselves; this entry serves
   * isolates of an earlier build during a deploy, and operators' tools). Returns the version.
   */
  async report(samples: Sample[], unreachable: DeadReport[] = []): Promise<number> {
    const providers = new Set([...samples.map((s) => s.provider), ...unreachable.map((d) => d.provider)]);
    for (const provider of providers) {
      const mine = samples.filter((s) => s.provider === provider);
      const policies = Object.fromEntries(
        [...new Set(mine.map((s) => s.tool))].map((tool) => [tool, this.#policyFor(provider, tool)]),
      );
      const view = await this.#health(provider).report(
        { provider, samples: mine, unreachable: unreachable.filter((d) => d.provider === provider), policies },
        { now: this.clock() },
      );
      await this.#applyHealth(view);
    }
    return this.#store.version();
  }

  /**
   * A provider's health view from its shard (section 9.2 of docs/scale.md). Kept if newer
   * than the one held; the version moves only when what the edge must know changed (the
   * shard sends statistics only when their quantized digest moved). A provider the shard
   * found dead is marked dead here and probed until it answers; only this object revives.
   */
  async applyHealth(view: ProviderHealthView): Promise<number> {
    return this.#applyHealth(view);
  }

  /** applyHealth from within (a view taken from a shard's answer): a private method, so that a meter of the object's RPC methods counts only what arrives. */
  async #applyHealth(view: ProviderHealthView): Promise<number> {
    const held = this.#store.edgeHealth().get(view.provider);
    if (held && held.seq >= view.seq) return this.#store.version();
    this.#store.saveEdgeHealth(view);
    this.#composed = undefined;
    let changed = !held || viewDigest(held) !== viewDigest(view);
    if (view.dead && this.#store.markDead(view.provider, view.dead.since, view.dead.reason)) {
      changed = true;
      await this.#probeLater();
    }
    return changed ? this.#changed() : this.#store.version();
  }

  /**
   * docs/contract.md#liveness: the dead come back by themselves. While a provider is dead (or its
   * manifest did not answer), the registry re-reads the manifests every PROBE_EVERY_MS; one
   * that answers, dead for at least LIVENESS_PROBE_MS, is alive again — no operator needed.
   */
  async alarm(): Promise<void> {
    await this.#reload();
    await this.#probeLater();
  }

  /** docs/contract.md#circuit-breakers, half-open, asked of the provider's shard (edges ask it themselves; see `report`). */
  async acquireTrial(provider: string, tool: string): Promise<boolean> {
    const { granted, view } = await this.#health(provider).acquireTrial(tool, this.#policyFor(provider, tool), {
      now: this.clock(),
    });
    await this.#applyHealth(view);
    return granted;
  }

  /** A granted trial that never reached its provider: the next caller may take it at once. */
  async returnTrial(provider: string, tool: string): Promise<void> {
    await this.#applyHealth(await this.#health(provider).returnTrial(tool, { now: this.clock() }));
  }

  /** Operator: change a provider's trust or disable it, at run time. */
  async setProvider(name: string, patch: ProviderOverride): Promise<RegistrySnapshot | undefined> {
    if (!this.#known(name)) return undefined;
    this.#store.saveOverride(name, { ...this.#store.overrides().get(name), ...patch });
    this.#changed();
    // Disabling is an operator's removal: what it leaves is meant.
    if (patch.disabled === true) this.#store.saveExplainedTools(Object.keys(this.#catalog()?.tools ?? {}).length);
    return this.#answer();
  }

  /**
   * Operator: forget a provider's statistics, breakers and liveness (after fixing it, say), so
   * the next calls judge it afresh. Undefined when no such provider is configured.
   */
  async resetHealth(name: string): Promise<RegistrySnapshot | undefined> {
    if (!this.#known(name)) return undefined;
    this.#store.forgetHealth(name);
    // The shard's empty view comes with a newer seq, so no isolate keeps an older patch.
    this.#store.saveEdgeHealth(await this.#health(name).reset());
    this.#changed();
    return this.#answer();
  }

  /** Operator: deprecate a tool version with a sunset and a replacement, or lift it (null). */
  async deprecate(
    tool: string,
    version: string,
    deprecation: Deprecation | null,
  ): Promise<RegistrySnapshot | undefined> {
    await this.snapshot();
    if (!this.#catalog()?.tools[tool]?.versions[version]) return undefined;
    if (deprecation) this.#store.saveDeprecation(tool, version, deprecation);
    else this.#store.removeDeprecation(tool, version);
    this.#changed();
    return this.#answer();
  }

  // ── upstream MCP servers (docs/contract.md#upstreams) ─────────────────────────────────────────────────

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

  /**
   * Operator: rejects a changed definition by its hash. Nothing that serves changes (the
   * approved definition, or the tool withheld), so there is no listing to redo.
   */
  async rejectUpstreamChange(
    name: string,
    tool: string,
    hash: string,
    by: string,
    reason: string | null,
  ): Promise<Outcome<UpstreamView>> {
    const rejected = this.#upstreams.rejectChange(name, tool, hash, by, reason);
    if (!rejected.ok) return rejected;
    await this.snapshot();
    return { ok: true, value: this.#upstreamView(name)! };
  }

  /** Definitions waiting for an operator, for /metrics. */
  async upstreamChanges(): Promise<{ upstream: string; tool: string; seen_at: number }[]> {
    return [...this.#upstreams.store.pending().values()].map((c) => ({
      upstream: c.upstream,
      tool: c.tool,
      seen_at: c.seen_at,
    }));
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

  /** The snapshot to answer: the current one when the publish rule lets it out. */
  async #answer(): Promise<RegistrySnapshot> {
    const given = this.#publisher.give(this.#compose());
    if (given) return given;
    // Held back, and this instance has given nothing out since it started: a completed load
    // explains what it finds, so the answer is what the providers serve now.
    await this.#reload();
    const loaded = this.#publisher.give(this.#compose());
    if (!loaded) throw new Error("the registry's snapshot was held back after a completed load");
    return loaded;
  }

  #compose(): RegistrySnapshot {
    if (this.#composed) return this.#composed;
    const health: Record<string, OfferingHealth> = {};
    const seqs: Record<string, number> = {};
    for (const view of this.#store.edgeHealth().values()) {
      seqs[view.provider] = view.seq;
      for (const [tool, h] of Object.entries(view.tools)) health[healthKey(view.provider, tool)] = h;
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
    this.#composed.health_seq = seqs;
    return this.#composed;
  }

  #policyFor(provider: string, tool: string): BreakerPolicy {
    return policyOf(this.#catalog(), provider, tool) ?? DEFAULT_BREAKER;
  }

  /** A provider's health shard; this registry's own (tests make registries of their own). */
  #health(provider: string) {
    return healthStub(this.env, provider, this.ctx.id.name ?? REGISTRY_NAME);
  }

  /** Schedules the next liveness probe while any provider is dead or unreachable. */
  async #probeLater(): Promise<void> {
    const needed =
      this.#store.dead().size > 0 || (this.#store.catalog()?.catalog.providers.some((p) => !p.reachable) ?? false);
    if (needed && (await this.ctx.storage.getAlarm()) === null)
      await this.ctx.storage.setAlarm(Date.now() + PROBE_EVERY_MS);
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
      if (
        load.manifest &&
        !load.error &&
        dead &&
        now - dead.since >= LIVENESS_PROBE_MS &&
        this.#store.markAlive(load.config.name)
      ) {
        revived = true;
        // The shard forgets its own verdict too, so that no edge is told "dead" again.
        this.#store.saveEdgeHealth(await this.#health(load.config.name).revive());
      }
    }
    const catalog = await buildCatalog(loads, (hash) => hasValidator(hash));
    catalog.problems.push(...upstreamLoads.flatMap((l) => l.problems));
    for (const problem of catalog.problems) console.warn(JSON.stringify({ msg: "registry problem", problem }));
    const previous = this.#catalog();
    this.#store.saveCatalog(this.#configKey(), now, catalog);
    if (revived || !previous || canonicalJson(previous) !== canonicalJson(catalog)) this.#changed();
    else this.#composed = undefined;
    // A completed load explains what it found, fewer tools included (the publish rule).
    this.#store.saveExplainedTools(Object.keys(catalog.tools).length);
    await this.#probeLater();
  }

  async #loadProvider(config: ProviderConfig): Promise<ProviderLoad> {
    const seq = this.#store.registrationSeq(config.name);
    const service = providerBinding(this.env, config);
    let error: string;
    try {
      if (!service || typeof service.manifest !== "function") throw new Error(`no service binding ${config.binding}`);
      const manifest = await withTimeout<ProviderManifest>(
        service.manifest(),
        MANIFEST_TIMEOUT_MS,
        `manifest() took over ${MANIFEST_TIMEOUT_MS} ms`,
      );
      if (!manifest || !Array.isArray(manifest.tools)) throw new Error("manifest() returned no tool list");
      return { config, seq, manifest };
    } catch (err) {
      error = `manifest() failed: ${(err as Error).message}`;
    }
    // A provider that stops answering keeps its last known offerings, marked dead, so that
    // ranking skips it instead of forgetting it (docs/contract.md#liveness).
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
