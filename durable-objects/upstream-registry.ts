/**
 * The registry object's part for upstream MCP servers: which upstreams there are
 * (deploy configuration's UPSTREAMS, then those registered through the admin API), listing
 * each into a ProviderLoad like a provider's manifest, pinning their definitions, and the
 * operators' view, approvals and rejections. Composed into RegistryObject, which keeps the catalog,
 * liveness and health for upstreams exactly as for provider Workers.
 */
import { type Outcome } from "../src/contract.ts";
import { RuntimeError } from "../src/errors.ts";
import type { Offering, ProviderLoad } from "../src/registry/catalog.ts";
import { canonicalJson } from "../src/schema/schema-hash.ts";
import { loadConfig } from "../src/config.ts";
import { loadUpstreams, parseUpstream, UpstreamConfigError, type UpstreamConfig } from "../src/upstreams/config.ts";
import { upstreamOffering } from "../src/upstreams/offering.ts";
import { approve, decidePins, reject, rejectedHashes, type PendingChange } from "../src/upstreams/pinning.ts";
import { checkAgainstEnv } from "../src/upstreams/registration.ts";
import type { UpstreamTarget } from "../src/upstreams/target.ts";
import { upstreamView, type UpstreamView } from "../src/upstreams/view.ts";
import type { ToolManifestEntry } from "../providers/sdk/protocol.ts";
import { UpstreamStore } from "./upstream-store.ts";

/** A load plus what the catalog's problem list should say about it. */
export type UpstreamLoad = ProviderLoad & { problems: string[] };

export class UpstreamRegistry {
  readonly store: UpstreamStore;
  readonly #env: Env;
  readonly #clock: () => number;

  constructor(sql: SqlStorage, env: Env, clock: () => number) {
    this.store = new UpstreamStore(sql);
    this.#env = env;
    this.#clock = clock;
  }

  /** Every upstream: deploy configuration's first, then the admin API's. */
  all(): UpstreamConfig[] {
    return [...loadUpstreams(this.#env), ...this.store.registered()];
  }

  find(name: string): UpstreamConfig | undefined {
    return this.all().find((u) => u.name === name);
  }

  /** Changes when an upstream is added, removed or changed: the registry reloads then. */
  configKey(): string {
    const all = this.all();
    return all.length === 0 ? "" : `|upstreams:${canonicalJson(all)}`;
  }

  /**
   * Lists one upstream and decides what it serves. A listing that fails keeps the last known
   * offerings (`lastKnown`), with the error: the registry marks the upstream dead, as it does a
   * provider whose manifest stops answering.
   */
  async load(upstream: UpstreamConfig, seq: number, lastKnown: Offering[]): Promise<UpstreamLoad> {
    const config = { name: upstream.name, binding: upstream.binding ?? upstream.url!, trust: upstream.trust };
    const now = this.#clock();
    try {
      checkAgainstEnv(this.#env, upstream);
    } catch (err) {
      const error = `left out: ${(err as Error).message}`;
      this.store.saveStatus(upstream.name, { listed_at: now, error, tools: [], withheld: [], not_allowed: 0 });
      return { config, seq, error, upstream: { targets: {} }, problems: [`${upstream.name}: ${error}`] };
    }
    let found;
    try {
      // The MCP client loads with the first listing, not with every isolate (docs/architecture.md#start-up-and-size).
      const { discover } = await import("../src/upstreams/discovery.ts");
      found = await discover(this.#env, upstream);
    } catch (err) {
      const error = (err as Error).message;
      const previous = this.store.status(upstream.name);
      this.store.saveStatus(upstream.name, {
        ...(previous ?? { tools: [], withheld: [], not_allowed: 0 }),
        listed_at: now,
        error,
      });
      if (lastKnown.length === 0) return { config, seq, error, upstream: { targets: {} }, problems: [] };
      const targets: Record<string, UpstreamTarget> = Object.fromEntries(
        lastKnown.map((o) => [o.manifest.name, o.upstream!]),
      );
      return {
        config,
        seq,
        error,
        manifest: { provider: upstream.name, sdk_version: "mcp (last known)", tools: lastKnown.map((o) => o.manifest) },
        upstream: { targets },
        problems: [],
      };
    }
    const d = decidePins(
      found.listed,
      this.store.pins(upstream.name),
      this.store.pending(upstream.name),
      upstream.on_change,
      now,
      rejectedHashes(this.store.rejections(upstream.name)),
    );
    for (const pin of d.newPins) this.store.savePin(upstream.name, pin);
    for (const change of d.newPending) this.store.savePending(upstream.name, change);
    for (const tool of d.cleared) this.store.clearPending(upstream.name, tool);
    for (const e of d.events) {
      // The log says it too (docs/contract.md#upstreams): a changed definition is what an operator must look at.
      const line = {
        msg: `upstream tool definition ${e.kind}`,
        upstream: upstream.name,
        tool: e.tool,
        hash: e.hash,
        ...(e.approved_hash
          ? { approved_hash: e.approved_hash, serving: upstream.on_change === "keep" ? "approved" : "withheld" }
          : {}),
      };
      if (e.kind === "changed") console.warn(JSON.stringify(line));
      else console.log(JSON.stringify(line));
    }
    const tools: ToolManifestEntry[] = [];
    const targets: Record<string, UpstreamTarget> = {};
    for (const served of d.serve) {
      const { entry, target } = upstreamOffering(upstream, found.era, served);
      tools.push(entry);
      targets[entry.name] = target;
    }
    this.store.saveStatus(upstream.name, {
      listed_at: now,
      era: found.era.kind,
      tools: found.listed.map((l) => l.definition.name),
      withheld: d.withheld,
      not_allowed: found.notAllowed,
    });
    const problems = d.withheld.map((tool) =>
      d.rejected.includes(tool)
        ? `${upstream.name}: ${tool} withheld: it lists a definition an operator rejected`
        : `${upstream.name}: ${tool} withheld: its definition changed; approve or reject it (GET /v1/admin/upstreams/${upstream.name})`,
    );
    return {
      config,
      seq,
      manifest: { provider: upstream.name, sdk_version: "mcp", tools },
      upstream: { targets },
      problems,
    };
  }

  /** An operator's registration: checked whole (shape, environment, unique name) before it is kept. */
  register(raw: unknown): Outcome<UpstreamConfig> {
    let upstream: UpstreamConfig;
    try {
      upstream = parseUpstream(raw, "admin");
      checkAgainstEnv(this.#env, upstream);
    } catch (err) {
      if (err instanceof UpstreamConfigError) return refused("invalid_request", err.message, { field: err.field });
      throw err;
    }
    const taken =
      loadConfig(this.#env).providers.some((p) => p.name === upstream.name) ||
      loadUpstreams(this.#env).some((u) => u.name === upstream.name);
    if (taken)
      return refused(
        "invalid_request",
        `${upstream.name} is already a provider or an upstream in deploy configuration`,
        { field: "name" },
      );
    if (this.store.registered().some((u) => u.name === upstream.name))
      return refused("invalid_request", `an upstream named ${upstream.name} is already registered; delete it first`, {
        field: "name",
      });
    this.store.saveRegistration(upstream);
    return { ok: true, value: upstream };
  }

  /** Removes an admin registration; one from deploy configuration is removed there. */
  remove(name: string): Outcome<{ name: string }> {
    if (loadUpstreams(this.#env).some((u) => u.name === name))
      return refused("invalid_request", `${name} is registered in deploy configuration (UPSTREAMS); remove it there`, {
        upstream: name,
      });
    if (!this.store.registered().some((u) => u.name === name))
      return refused("not_found", `no upstream ${name}`, { upstream: name });
    this.store.remove(name);
    return { ok: true, value: { name } };
  }

  /** Approves the pending definition of `tool`, if `hash` is the one that is pending. */
  approve(name: string, tool: string, hash: string): Outcome<{ tool: string; hash: string }> {
    if (!this.find(name)) return refused("not_found", `no upstream ${name}`, { upstream: name });
    const pending = this.store.pending(name).get(tool);
    const pin = approve(pending, hash, this.#clock());
    if (!pin) return undecided(name, tool, hash, pending);
    this.store.savePin(name, pin);
    this.store.clearPending(name, tool);
    console.log(JSON.stringify({ msg: "upstream tool definition approved", upstream: name, tool, hash }));
    return { ok: true, value: { tool, hash } };
  }

  /**
   * Rejects the pending definition of `tool`, if `hash` is the one that is pending: it is
   * dismissed and remembered, so listings do not raise it again; what served before serves on.
   */
  rejectChange(
    name: string,
    tool: string,
    hash: string,
    by: string,
    reason: string | null,
  ): Outcome<{ tool: string; hash: string }> {
    const upstream = this.find(name);
    if (!upstream) return refused("not_found", `no upstream ${name}`, { upstream: name });
    const pending = this.store.pending(name).get(tool);
    const rejection = reject(pending, hash, this.#clock(), by, reason);
    if (!rejection) return undecided(name, tool, hash, pending);
    this.store.saveRejection(name, rejection);
    this.store.clearPending(name, tool);
    const serving = upstream.on_change === "keep" ? "approved" : "withheld";
    console.log(
      JSON.stringify({
        msg: "upstream tool definition rejected",
        upstream: name,
        tool,
        hash,
        approved_hash: this.store.pins(name).get(tool)?.hash,
        serving,
        rejected_by: by,
        reason,
      }),
    );
    return { ok: true, value: { tool, hash } };
  }

  view(name: string, served: string[]): UpstreamView | undefined {
    const upstream = this.find(name);
    if (!upstream) return undefined;
    const status = this.store.status(name);
    return upstreamView({
      upstream,
      ...(status
        ? {
            status: {
              listed_at: status.listed_at,
              error: status.error,
              era: status.era,
              withheld: status.withheld,
              not_allowed: status.not_allowed,
            },
          }
        : {}),
      served,
      pins: this.store.pins(name),
      pending: this.store.pending(name),
      rejections: this.store.rejections(name),
    });
  }
}

/** Why a decision on `hash` was refused: another hash is pending (400), or nothing is (404). */
function undecided<T>(name: string, tool: string, hash: string, pending: PendingChange | undefined): Outcome<T> {
  return pending
    ? refused(
        "invalid_request",
        `the pending definition of ${tool} has hash ${pending.hash}, not ${hash}; review it again`,
        { field: "hash", pending_hash: pending.hash },
      )
    : refused("not_found", `no change of ${tool} is waiting for approval`, { upstream: name, tool });
}

function refused<T>(
  code: "invalid_request" | "not_found",
  message: string,
  details: Record<string, string>,
): Outcome<T> {
  return { ok: false, error: new RuntimeError(code, message, details).toBody() };
}
