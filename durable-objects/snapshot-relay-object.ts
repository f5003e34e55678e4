/**
 * SnapshotRelayObject: one data center's relay of the registry snapshot, named
 * `<registry>@<data center>` (src/object-stubs.ts) — a shell around SnapshotRelay
 * (src/registry/snapshot-relay.ts). It keeps nothing in storage: a restarted relay reads the
 * registry once more.
 */
import { DurableObject } from "cloudflare:workers";
import { loadConfig } from "../src/config.ts";
import { REGISTRY_NAME, registryOfRelay, registryStub } from "../src/object-stubs.ts";
import type { RegistrySnapshot } from "../src/registry/catalog.ts";
import { SnapshotRelay, type RelayedSnapshot } from "../src/registry/snapshot-relay.ts";

export class SnapshotRelayObject extends DurableObject<Env> {
  readonly #relay: SnapshotRelay;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const registry = registryStub(env, registryOfRelay(ctx.id.name ?? REGISTRY_NAME));
    this.#relay = new SnapshotRelay(
      () => registry.snapshot(),
      () => loadConfig(env).snapshotTtlMs,
    );
  }

  /** The data center's copy, read from the registry at most once per TTL. */
  async snapshot(): Promise<RelayedSnapshot> {
    return this.#relay.snapshot();
  }

  /** An operator's change, made in this data center: the relay holds it at once. */
  async offer(snapshot: RegistrySnapshot): Promise<void> {
    this.#relay.offer(snapshot);
  }
}
