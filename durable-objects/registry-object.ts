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
 *
 * Operators' and tenants' tool bundles (docs/contract.md#bundles) are kept here too and ride in every
 * snapshot, so that the edge serves `/mcp/{bundle}` from its copy.
 *
 * This class is the object's RPC surface and its health handling; the catalog's loading,
 * composing and giving out live in registry-catalog.ts and the files it names.
 */
import { DurableObject } from "cloudflare:workers";
import { loadConfig } from "../src/config.ts";
import type { RegistrySnapshot } from "../src/registry/catalog.ts";
import { healthStub, REGISTRY_NAME } from "../src/object-stubs.ts";
import { policyOf, viewDigest, type ProviderHealthView } from "../src/registry/health-view.ts";
import { DEFAULT_BREAKER, type BreakerPolicy, type DeadReport, type Sample } from "../src/registry/provider-health.ts";
import type { Value } from "../providers/sdk/protocol.ts";
import { RegistryCatalog } from "./registry-catalog.ts";
import { RegistryStore, type Deprecation, type ProviderOverride } from "./registry-store.ts";
import { UpstreamRegistry } from "./upstream-registry.ts";
import { BootstrapClaim, type BootstrapUse } from "./bootstrap-claim.ts";
import { ReportKey } from "./report-key.ts";
import type { Outcome } from "../src/contract.ts";
import type { UpstreamConfig } from "../src/upstreams/config.ts";
import type { UpstreamView } from "../src/upstreams/view.ts";
import { BUNDLE_LIMITS, type Bundle } from "../src/registry/bundles.ts";
import { RuntimeError } from "../src/errors.ts";

export { LIVENESS_PROBE_MS, PROBE_EVERY_MS } from "./registry-liveness.ts";
export { DEAD_AFTER_TRANSPORT_FAILURES } from "../src/registry/health-shard.ts";

export class RegistryObject extends DurableObject<Env> {
  readonly #store: RegistryStore;
  /** Upstream MCP servers (docs/contract.md#upstreams): their registrations, pins and listings. */
  readonly #upstreams: UpstreamRegistry;
  /** The catalog: loaded, composed into snapshots, given out under the publish rule. */
  readonly #catalog: RegistryCatalog;
  /** Whether the operator bootstrap was used (src/routes/bootstrap.ts): the deployment's one global fact of its kind. */
  readonly #bootstrap: BootstrapClaim;
  readonly #reportKey: ReportKey;
  /** The registry's notion of now; tests replace it to step through breaker cooldowns. */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#store = new RegistryStore(ctx.storage.sql);
    this.#upstreams = new UpstreamRegistry(ctx.storage.sql, env, () => this.clock());
    this.#bootstrap = new BootstrapClaim(ctx.storage.sql);
    this.#reportKey = new ReportKey(ctx.storage.sql);
    this.#catalog = new RegistryCatalog({
      env,
      storage: ctx.storage,
      store: this.#store,
      upstreams: this.#upstreams,
      name: ctx.id.name ?? REGISTRY_NAME,
      clock: () => this.clock(),
      revive: (provider) => this.#health(provider).revive(),
    });
    // The cold-start rule: a registry without a catalog loaded for its configuration loads the
    // providers' manifests before it takes any request. An operator's change applied to a
    // catalog never loaded composes an empty snapshot, and edges take the newest version they
    // are given: every tool would be tool_not_found everywhere until the copies expire. Done
    // here rather than by a line at the top of each method: the runtime delivers no RPC call,
    // alarm or fetch to the object until this promise settles, so a method added later cannot
    // forget it. If the load throws, the object is reset and the next request loads again.
    void ctx.blockConcurrencyWhile(async () => {
      if (!this.#catalog.loadedForConfig()) await this.#catalog.reload();
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
    return this.#catalog.snapshot();
  }

  /** Re-reads every provider's manifest now (operators; deploy hooks). */
  async refresh(): Promise<RegistrySnapshot> {
    await this.#catalog.reloadWithChanges();
    return this.#catalog.answer();
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
    this.#catalog.recompose();
    let changed = !held || viewDigest(held) !== viewDigest(view);
    if (view.dead && this.#store.markDead(view.provider, view.dead.since, view.dead.reason)) {
      changed = true;
      await this.#catalog.probeLater();
    }
    return changed ? this.#catalog.changed() : this.#store.version();
  }

  /**
   * docs/contract.md#liveness: the dead come back by themselves. While a provider is dead (or its
   * manifest did not answer), the registry re-reads the manifests every PROBE_EVERY_MS; one
   * that answers, dead for at least LIVENESS_PROBE_MS, is alive again — no operator needed.
   */
  async alarm(): Promise<void> {
    await this.#catalog.reload();
    await this.#catalog.probeLater();
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
    this.#catalog.changed();
    // Disabling is an operator's removal: what it leaves is meant.
    if (patch.disabled === true)
      this.#store.saveExplainedTools(Object.keys(this.#catalog.catalog()?.tools ?? {}).length);
    return this.#catalog.answer();
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
    this.#catalog.changed();
    return this.#catalog.answer();
  }

  /** Operator: deprecate a tool version with a sunset and a replacement, or lift it (null). */
  async deprecate(
    tool: string,
    version: string,
    deprecation: Deprecation | null,
  ): Promise<RegistrySnapshot | undefined> {
    await this.snapshot();
    if (!this.#catalog.catalog()?.tools[tool]?.versions[version]) return undefined;
    if (deprecation) this.#store.saveDeprecation(tool, version, deprecation);
    else this.#store.removeDeprecation(tool, version);
    this.#catalog.changed();
    return this.#catalog.answer();
  }

  // ── tool bundles (docs/contract.md#bundles) ─────────────────────────────────────────────────────────

  /** Operator: every bundle, by name. */
  async bundles(): Promise<Bundle[]> {
    return [...this.#store.bundles().values()];
  }

  /** Operator: creates or replaces a bundle (checked by the route); the answer says whether it was new. */
  async putBundle(bundle: Bundle): Promise<Outcome<{ created: boolean; snapshot: RegistrySnapshot }>> {
    const held = this.#store.bundles();
    if (!held.has(bundle.name) && held.size >= BUNDLE_LIMITS.bundles)
      return refusedBundle(`there are already ${BUNDLE_LIMITS.bundles} bundles; delete one first`);
    this.#store.saveBundle(bundle);
    this.#catalog.changed();
    return { ok: true, value: { created: !held.has(bundle.name), snapshot: await this.#catalog.answer() } };
  }

  /** A tenant's own bundles (its admins', docs/contract.md#bundles), by name. */
  async tenantBundles(tenant: string): Promise<Bundle[]> {
    return [...this.#store.tenantBundles(tenant).values()];
  }

  /** Tenant admin: creates or replaces one of the tenant's bundles, at most `BUNDLE_LIMITS.tenant_bundles` each. */
  async putTenantBundle(
    tenant: string,
    bundle: Bundle,
  ): Promise<Outcome<{ created: boolean; snapshot: RegistrySnapshot }>> {
    const held = this.#store.tenantBundles(tenant);
    if (!held.has(bundle.name) && held.size >= BUNDLE_LIMITS.tenant_bundles)
      return refusedBundle(`tenant ${tenant} already has ${BUNDLE_LIMITS.tenant_bundles} bundles; delete one first`);
    this.#store.saveTenantBundle(tenant, bundle);
    this.#catalog.changed();
    return { ok: true, value: { created: !held.has(bundle.name), snapshot: await this.#catalog.answer() } };
  }

  /** Tenant admin: deletes one of the tenant's bundles; undefined when it has none of that name. */
  async removeTenantBundle(tenant: string, name: string): Promise<RegistrySnapshot | undefined> {
    if (!this.#store.removeTenantBundle(tenant, name)) return undefined;
    this.#catalog.changed();
    return this.#catalog.answer();
  }

  /** Operator: deletes a bundle; undefined when there is none of that name. */
  async removeBundle(name: string): Promise<RegistrySnapshot | undefined> {
    if (!this.#store.removeBundle(name)) return undefined;
    this.#catalog.changed();
    return this.#catalog.answer();
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
    await this.#catalog.reloadWithChanges();
    return { ok: true, value: this.#upstreamView(registered.value.name)! };
  }

  async removeUpstream(name: string): Promise<Outcome<{ name: string }>> {
    const removed = this.#upstreams.remove(name);
    if (removed.ok) await this.#catalog.reloadWithChanges();
    return removed;
  }

  /** Operator: lists one upstream now (the whole catalog is reloaded: one catalog, one version). */
  async refreshUpstream(name: string): Promise<UpstreamView | undefined> {
    if (!this.#upstreams.find(name)) return undefined;
    await this.#catalog.reloadWithChanges();
    return this.#upstreamView(name);
  }

  /** Operator: approves a changed definition by its hash; it serves from the next listing, done now. */
  async approveUpstreamChange(name: string, tool: string, hash: string): Promise<Outcome<UpstreamView>> {
    const approved = this.#upstreams.approve(name, tool, hash);
    if (!approved.ok) return approved;
    await this.#catalog.reloadWithChanges();
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
    const served = Object.values(this.#catalog.catalog()?.tools ?? {})
      .filter((t) => Object.values(t.versions).some((os) => os.some((o) => o.provider === name)))
      .map((t) => t.name);
    return this.#upstreams.view(name, served);
  }

  #known(name: string): boolean {
    return loadConfig(this.env).providers.some((p) => p.name === name) || this.#upstreams.find(name) !== undefined;
  }

  #policyFor(provider: string, tool: string): BreakerPolicy {
    return policyOf(this.#catalog.catalog(), provider, tool) ?? DEFAULT_BREAKER;
  }

  /** A provider's health shard; this registry's own (tests make registries of their own). */
  #health(provider: string) {
    return healthStub(this.env, provider, this.ctx.id.name ?? REGISTRY_NAME);
  }
}

function refusedBundle<T>(message: string): Outcome<T> {
  return { ok: false, error: new RuntimeError("invalid_request", message, { field: "name" }).toBody() };
}
