/**
 * One data center's relay of the registry snapshot (docs/scale.md section 9.1): the step
 * between a data center's Cache API entry and the one registry object. Every isolate of a data
 * center that refills the entry asks its data center's relay, never the registry; the relay
 * reads the registry at most once per TTL, and concurrent askers share that one read. So the
 * registry serves at most one snapshot read per data center per TTL however many isolates
 * there refill at once — the Cache API has no compare-and-set, and isolates that find the
 * entry stale in the same moment all refill it.
 *
 * The copy is answered with the time the registry answered it, so an entry filled from it is
 * fresh for what is left of the TTL, not for a new one: a change still reaches every isolate
 * within two TTLs of the registry.
 */
import type { RegistrySnapshot } from "./catalog.ts";

/** A copy, and when the registry answered it. */
export interface RelayedSnapshot {
  snapshot: RegistrySnapshot;
  fetched_at: number;
}

export class SnapshotRelay {
  #held: RelayedSnapshot | undefined;
  #reading: Promise<RelayedSnapshot> | undefined;
  readonly #read: () => Promise<RegistrySnapshot>;
  readonly #ttlMs: () => number;
  readonly #clock: () => number;

  /** `read` asks the registry; `ttlMs` is the edge's snapshot TTL (read at each ask: configuration may change). */
  constructor(read: () => Promise<RegistrySnapshot>, ttlMs: () => number, clock: () => number = Date.now) {
    this.#read = read;
    this.#ttlMs = ttlMs;
    this.#clock = clock;
  }

  /** The copy when it is younger than the TTL; else one registry read, shared by every asker meanwhile. */
  async snapshot(): Promise<RelayedSnapshot> {
    if (this.#held && this.#clock() - this.#held.fetched_at < this.#ttlMs()) return this.#held;
    this.#reading ??= this.#fetch().finally(() => (this.#reading = undefined));
    return this.#reading;
  }

  /** A snapshot an operator's change was answered with: newer than the copy, it replaces it at once. */
  offer(snapshot: RegistrySnapshot): void {
    if (!this.#held || snapshot.version > this.#held.snapshot.version)
      this.#held = { snapshot, fetched_at: this.#clock() };
  }

  async #fetch(): Promise<RelayedSnapshot> {
    const askedAt = this.#clock();
    try {
      const snapshot = await this.#read();
      // Never step back if an operator's newer snapshot was offered during the read.
      if (!this.#held || snapshot.version >= this.#held.snapshot.version)
        this.#held = { snapshot, fetched_at: askedAt };
      else this.#held = { ...this.#held, fetched_at: askedAt };
      return this.#held;
    } catch (err) {
      // The registry could not be read: the copy held, however old, beats none (its age says so).
      if (this.#held) return this.#held;
      throw err;
    }
  }
}
