/**
 * What a simulated isolate is, whatever the design under test: something that warms up (holds
 * what a warm isolate holds) and then takes calls, each of which ends in one outcome. A design
 * ("before", "after") is a module under sim/edges/ exporting `createEdge`, wired from the real
 * edge code of that design; the harness (sim/run.ts, sim/isolate-group.ts) is the same for all.
 */

export interface EdgeOptions {
  /** Also take and release the tenant's admission (TenantObject) for each call. */
  admission: boolean;
  /**
   * The isolates know their data center, so refills go to its relay (as a deployed edge's do).
   * False (`--no-relay`): they refill from the registry, as the edge did before the relay.
   */
  relay: boolean;
}

/** One simulated call: a tool, a tenant, and how the provider behaves. */
export interface SimCall {
  tool: string;
  tenant: string;
  /** The provider that fails, and the share of its calls that fail. */
  failingProvider: string;
  failureRate: number;
  /** How long the simulated provider takes. */
  latencyMs: number;
}

/** ok / failed at the provider / no provider could take it (breaker, trial held elsewhere) / refused by admission. */
export type SimOutcome = "ok" | "failed" | "no_provider" | "refused";

export interface SimEdge {
  warm(): Promise<void>;
  call(call: SimCall): Promise<SimOutcome>;
}

export type CreateEdge = (env: Env, options: EdgeOptions) => SimEdge;

/** The provider, simulated: it answers after `latencyMs`, and the failing one fails `failureRate` of its calls. */
export async function simulateProvider(provider: string, call: SimCall): Promise<{ ok: boolean; latency_ms: number }> {
  const started = Date.now();
  await new Promise((r) => setTimeout(r, call.latencyMs));
  return {
    ok: !(provider === call.failingProvider && Math.random() < call.failureRate),
    latency_ms: Date.now() - started,
  };
}
