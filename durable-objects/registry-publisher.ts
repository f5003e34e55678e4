/**
 * The registry object's last step before a snapshot leaves it: the publish rule
 * (src/registry/publish-rule.ts) against what it gave out last, kept durably in its store. A
 * snapshot the rule holds back is logged, and the one given out last is answered again, so
 * every copy at the edges keeps it.
 */
import type { RegistrySnapshot } from "../src/registry/catalog.ts";
import { publishDecision, toolCount } from "../src/registry/publish-rule.ts";
import type { RegistryStore } from "./registry-store.ts";

export class RegistryPublisher {
  readonly #store: RegistryStore;
  readonly #registry: string;
  /** The snapshot given out last, while this instance lives (its count and version are in the store). */
  #given: RegistrySnapshot | undefined;
  /** The last snapshot held back, so that each is logged once however often it is asked for. */
  #heldBack: RegistrySnapshot | undefined;

  constructor(store: RegistryStore, registry: string) {
    this.#store = store;
    this.#registry = registry;
  }

  /**
   * The snapshot to answer for `next`: `next` itself when the rule lets it out, else the one
   * given out last — undefined when the rule holds `next` back and this instance has given
   * nothing out since it started (the caller then loads the catalog, which explains what it finds).
   */
  give(next: RegistrySnapshot): RegistrySnapshot | undefined {
    if (next === this.#given) return next;
    const last = this.#store.published();
    const tools = toolCount(next);
    const decision = publishDecision(last, {
      version: next.version,
      tools,
      explainedTools: this.#store.explainedTools(),
    });
    if (decision.publish) {
      if (!last || last.version !== next.version || last.tools !== tools)
        this.#store.savePublished({ version: next.version, tools });
      this.#given = next;
      this.#heldBack = undefined;
      return next;
    }
    if (this.#heldBack !== next) {
      this.#heldBack = next;
      console.warn(
        JSON.stringify({
          msg: "registry snapshot held back",
          registry: this.#registry,
          reason: decision.reason,
          answering_version: this.#given?.version ?? null,
        }),
      );
    }
    return this.#given;
  }
}
