/**
 * One provider's health, as its shard keeps it (docs/scale.md section 9.3): the window of
 * recent samples per tool, the circuit breakers and their half-open trials (docs/contract.md#circuit-breakers), and
 * the strikes that call a provider dead (docs/contract.md#liveness). Health is sharded by provider
 * because nothing in it spans providers: each shard decides its own breakers exactly as the
 * registry used to, from every sample any isolate reports, and hands the registry only the
 * view the edge needs (src/registry/health-view.ts). The HealthObject is a shell around this.
 */
import {
  healthStats,
  nextBreaker,
  breakerView,
  CLOSED,
  DEFAULT_BREAKER,
  type BreakerPolicy,
  type BreakerRecord,
  type DeadReport,
  type Sample,
} from "./provider-health.ts";
import type { ProviderHealthView } from "./health-view.ts";
import { canonicalJson } from "../schema/schema-hash.ts";

/** Calls in a row that could not reach a provider's Worker before it is called dead. */
export const DEAD_AFTER_TRANSPORT_FAILURES = 3;
/** Samples kept per tool: enough for a stable p50, small enough to scan. */
export const SAMPLES_KEPT = 200;

/** What an isolate sends a provider's shard: outcomes, unreachable calls, and the policies of the tools it names. */
export interface HealthReport {
  provider: string;
  samples: Sample[];
  unreachable: DeadReport[];
  /** By tool, from the isolate's snapshot (the manifests'); the shard keeps the last it was told. */
  policies?: Record<string, BreakerPolicy>;
}

export interface ToolWindow {
  policy: BreakerPolicy | undefined;
  samples: Sample[];
}

/** Where a shard keeps what must survive a restart (durable-objects/health-store.ts). */
export interface HealthShardStore {
  windows(provider: string): Map<string, ToolWindow>;
  saveWindow(tool: string, w: ToolWindow): void;
  breakers(): Map<string, BreakerRecord>;
  saveBreaker(tool: string, b: BreakerRecord): void;
  clear(): void;
}

export class HealthShard {
  readonly provider: string;
  readonly #store: HealthShardStore;
  readonly #clock: () => number;
  readonly #windows: Map<string, ToolWindow>;
  readonly #breakers: Map<string, BreakerRecord>;
  #strikes = 0;
  #dead: { since: number; reason: string } | undefined;
  #seq: number;

  /** `clock` orders views (seq); decisions take the `now` of each call. */
  constructor(provider: string, store: HealthShardStore, clock: () => number = Date.now) {
    this.provider = provider;
    this.#store = store;
    this.#clock = clock;
    this.#windows = store.windows(provider);
    this.#breakers = store.breakers();
    this.#seq = clock();
  }

  /**
   * Outcomes of real calls. A provider is dead after DEAD_AFTER_TRANSPORT_FAILURES calls in a
   * row could not reach it (one failed call is one failed call); any good call resets the count.
   */
  report(r: HealthReport, now: number): void {
    const touched = new Set<string>();
    for (const [tool, policy] of Object.entries(r.policies ?? {}))
      if (this.#learnPolicy(tool, policy)) touched.add(tool);
    if (r.samples.some((s) => s.ok)) this.#strikes = 0;
    for (const d of r.unreachable) {
      this.#strikes++;
      if (this.#strikes >= DEAD_AFTER_TRANSPORT_FAILURES && !this.#dead) {
        this.#dead = { since: d.at, reason: d.reason };
        this.#strikes = 0;
      }
    }
    for (const sample of r.samples) {
      const w = this.#window(sample.tool);
      insertByTime(w.samples, sample);
      if (w.samples.length > SAMPLES_KEPT) w.samples.splice(0, w.samples.length - SAMPLES_KEPT);
      touched.add(sample.tool);
      const before = this.#breaker(sample.tool);
      const after = nextBreaker(before, sample, w.samples, this.#policy(sample.tool), now);
      if (after !== before) this.#saveBreaker(sample.tool, after);
    }
    for (const tool of touched) this.#store.saveWindow(tool, this.#windows.get(tool)!);
    this.#touch();
  }

  /**
   * docs/contract.md#circuit-breakers, half-open: the first caller to ask after the cooldown gets the one trial call;
   * everyone else keeps skipping the provider until the trial's outcome is reported.
   */
  acquireTrial(tool: string, policy: BreakerPolicy | undefined, now: number): boolean {
    if (policy && this.#learnPolicy(tool, policy)) this.#store.saveWindow(tool, this.#windows.get(tool)!);
    const b = this.#breaker(tool);
    const view = breakerView(b, now);
    // Closed already (an edge's copy was behind): the provider may simply be called.
    if (view === "closed") return true;
    if (view !== "half_open") return false;
    // A trial whose outcome never came (its execution died) is given out again after a cooldown.
    if (b.trial_at !== undefined && now - b.trial_at < this.#policy(tool).cooldown_ms) return false;
    this.#saveBreaker(tool, { ...b, trial_at: now });
    this.#touch();
    return true;
  }

  /** A granted trial that never reached its provider: the next caller may take it at once. */
  returnTrial(tool: string): void {
    const b = this.#breaker(tool);
    if (b.trial_at === undefined) return;
    const { trial_at: _, ...rest } = b;
    this.#saveBreaker(tool, rest);
    this.#touch();
  }

  /** The registry found the provider answering again: calls may reach it. */
  revive(): void {
    this.#dead = undefined;
    this.#strikes = 0;
    this.#touch();
  }

  /** Operator: forget what calls taught (samples, breakers, liveness); the provider is judged afresh. */
  reset(): void {
    this.#store.clear();
    this.#windows.clear();
    this.#breakers.clear();
    this.#strikes = 0;
    this.#dead = undefined;
    this.#touch();
  }

  /** What the edge must know of this provider now. */
  view(): ProviderHealthView {
    const tools: ProviderHealthView["tools"] = {};
    for (const tool of [...new Set([...this.#windows.keys(), ...this.#breakers.keys()])].sort()) {
      tools[tool] = {
        ...healthStats(this.#windows.get(tool)?.samples ?? []),
        breaker: this.#breaker(tool),
        policy: this.#policy(tool),
      };
    }
    return { provider: this.provider, seq: this.#seq, tools, ...(this.#dead ? { dead: this.#dead } : {}) };
  }

  #touch(): void {
    this.#seq = Math.max(this.#seq + 1, this.#clock());
  }

  #window(tool: string): ToolWindow {
    let w = this.#windows.get(tool);
    if (!w) this.#windows.set(tool, (w = { policy: undefined, samples: [] }));
    return w;
  }

  #learnPolicy(tool: string, policy: BreakerPolicy): boolean {
    const w = this.#window(tool);
    if (w.policy && canonicalJson(w.policy) === canonicalJson(policy)) return false;
    w.policy = policy;
    return true;
  }

  #policy(tool: string): BreakerPolicy {
    return this.#windows.get(tool)?.policy ?? DEFAULT_BREAKER;
  }

  #breaker(tool: string): BreakerRecord {
    return this.#breakers.get(tool) ?? CLOSED;
  }

  #saveBreaker(tool: string, b: BreakerRecord): void {
    this.#breakers.set(tool, b);
    this.#store.saveBreaker(tool, b);
  }
}

/** Keeps a window ordered by `at` (reports from many isolates interleave). */
function insertByTime(samples: Sample[], s: Sample): void {
  let i = samples.length;
  while (i > 0 && samples[i - 1].at > s.at) i--;
  samples.splice(i, 0, s);
}
