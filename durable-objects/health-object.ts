/**
 * HealthObject: one provider's health shard (docs/scale.md section 9.3), named
 * `<registry>/<provider>` (src/object-stubs.ts) — a shell around HealthShard. Edge
 * isolates and execution objects send it their batches of outcomes and ask it for half-open
 * trials; every answer carries the provider's health view, which the asking isolate patches
 * into its snapshot copy at once. The registry hears of it only when the view's digest
 * changes: breakers, trials and liveness at once, statistics at most every STATS_PUSH_MS
 * (one alarm, pointed at the earliest push due). So the registry's load no longer grows with
 * the number of isolates, and one provider's failure storm stays in that provider's shard.
 */
import { DurableObject } from "cloudflare:workers";
import { REGISTRY_NAME, registryStub, splitShardName } from "../src/object-stubs.ts";
import { HealthShard, type HealthReport } from "../src/registry/health-shard.ts";
import { breakerDigest, statsDigest, type ProviderHealthView } from "../src/registry/health-view.ts";
import type { BreakerPolicy } from "../src/registry/provider-health.ts";
import { HealthStore } from "./health-store.ts";

/** Statistics reach the registry at most this often per provider (the edge's TTL: sooner would not be seen sooner). */
export const STATS_PUSH_MS = 5_000;

/** The registry, asking on its own clock (its tests step it) and taking the view from the answer. */
export interface RegistryAsker {
  now: number;
}

export class HealthObject extends DurableObject<Env> {
  readonly #shard: HealthShard;
  readonly #registry: string;
  /** Digests of the last view the registry took (in memory: after a restart the next view is sent once more). */
  #pushed = { breakers: "", stats: "" };
  #lastPushAt = 0;
  #alarmAt: number | undefined;
  /** The shard's notion of now for its decisions; callers that keep their own (the registry's tests) pass theirs. */
  clock: () => number = Date.now;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const { registry, provider } = splitShardName(ctx.id.name ?? "");
    this.#registry = registry ?? REGISTRY_NAME;
    this.#shard = new HealthShard(provider, new HealthStore(ctx.storage.sql));
  }

  /**
   * A batch of outcomes; answers the provider's view after them. `asker` is the registry when
   * it hands on a report itself (its `report`, for isolates of an earlier build): it takes the
   * view from this answer, on its own clock.
   */
  async report(report: HealthReport, asker?: RegistryAsker): Promise<ProviderHealthView> {
    this.#shard.report(report, asker?.now ?? this.clock());
    return this.#changed(asker);
  }

  /** docs/contract.md#circuit-breakers: whether this caller takes the half-open trial, and the view that says who holds it. */
  async acquireTrial(
    tool: string,
    policy?: BreakerPolicy,
    asker?: RegistryAsker,
  ): Promise<{ granted: boolean; view: ProviderHealthView }> {
    const granted = this.#shard.acquireTrial(tool, policy, asker?.now ?? this.clock());
    return { granted, view: await this.#changed(asker) };
  }

  /** A granted trial that never reached the provider: handed back for the next caller. */
  async returnTrial(tool: string, asker?: RegistryAsker): Promise<ProviderHealthView> {
    this.#shard.returnTrial(tool);
    return this.#changed(asker);
  }

  /** The registry revived the provider (its manifest answered): calls may reach it. The registry takes the answer. */
  async revive(): Promise<ProviderHealthView> {
    this.#shard.revive();
    return this.#changed({ now: this.clock() });
  }

  /** Operator, through the registry: forget the provider's samples, breakers and strikes. The registry takes the answer. */
  async reset(): Promise<ProviderHealthView> {
    this.#shard.reset();
    return this.#changed({ now: this.clock() });
  }

  async view(): Promise<ProviderHealthView> {
    return this.#shard.view();
  }

  /** Sends the current view to the registry; throws (and the platform retries) if the registry cannot take it. */
  async alarm(): Promise<void> {
    this.#alarmAt = undefined;
    const view = this.#shard.view();
    await registryStub(this.env, this.#registry).applyHealth(view);
    this.#taken(view);
    await this.#schedulePush(this.#shard.view()); // something changed while it was sent
  }

  async #changed(asker?: RegistryAsker): Promise<ProviderHealthView> {
    const view = this.#shard.view();
    if (asker) this.#taken(view);
    else await this.#schedulePush(view);
    return view;
  }

  /** The registry has this view. */
  #taken(view: ProviderHealthView): void {
    this.#pushed = { breakers: breakerDigest(view), stats: statsDigest(view) };
    this.#lastPushAt = Date.now();
  }

  /** What the edge must hear at once goes now; statistics wait for STATS_PUSH_MS since the last push. */
  async #schedulePush(view: ProviderHealthView): Promise<void> {
    let due: number;
    if (breakerDigest(view) !== this.#pushed.breakers) due = Date.now();
    else if (statsDigest(view) !== this.#pushed.stats) due = Math.max(Date.now(), this.#lastPushAt + STATS_PUSH_MS);
    else return;
    if (this.#alarmAt !== undefined && this.#alarmAt <= due) return;
    this.#alarmAt = due;
    await this.ctx.storage.setAlarm(due);
  }
}
