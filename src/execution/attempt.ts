/**
 * One attempt of an execution (stage 6): a provider call with its own sink and stop latch,
 * settled (stage 7) and reported for the provider's health. Runs wherever the execution runs.
 */
import { traceparentOf } from "../audit/trace.ts";
import { providerService } from "../config.ts";
import type { ExecutionPlan, PlannedProvider } from "./dispatch.ts";
import { judge, report } from "../registry/health-reporter.ts";
import type { EmittedEvent } from "../../providers/sdk/protocol.ts";
import { invokeProvider, StopLatch, type ProviderOutcome } from "./provider-call.ts";
import type { AttemptResult } from "./retry.ts";
import { settle } from "./settle.ts";
import { ExecutionSinkTarget } from "./sink.ts";

export interface AttemptOptions {
  env: Env;
  plan: ExecutionPlan;
  provider: PlannedProvider;
  /** How long this attempt may take. */
  timeoutMs: number;
  n: number;
  /** The stop latch of this attempt (the run fires it to cancel or time out). */
  stop: StopLatch;
  /** Settles the attempt early (a forced cancel gives up waiting for the provider). */
  abandoned: Promise<ProviderOutcome>;
  onEmit: (event: EmittedEvent) => void;
  /** The caller cancelled: the outcome says nothing about the provider. */
  cancelled: () => boolean;
  /** Keeps work that outlives the attempt alive (the health batch). */
  background: (p: Promise<unknown>) => void;
}

export async function runAttempt(o: AttemptOptions): Promise<AttemptResult> {
  const { plan, provider } = o;
  const settleIt = (outcome: ProviderOutcome) =>
    settle(outcome, { output_hash: plan.output_hash, idempotent: plan.idempotent, timeout_ms: plan.timeout_ms, max_output_bytes: plan.max_output_bytes });
  // No budget left (the pipeline used it up): the provider is not called at all, so a side
  // effect cannot happen after the caller has been told it timed out.
  if (o.timeoutMs <= 0) return { outcome: { kind: "timeout" }, settlement: settleIt({ kind: "timeout" }) };
  const sink = new ExecutionSinkTarget(o.onEmit, o.stop);
  const startedAt = Date.now();
  const outcome = await invokeProvider(
    providerService(o.env, provider.binding),
    {
      execution_id: plan.execution_id,
      tool: plan.tool,
      version: plan.version,
      input: plan.input,
      caller: { tenant: plan.tenant, agent: plan.agent },
      context: { ...plan.context, attempt: o.n },
      remaining_timeout_ms: o.timeoutMs,
      traceparent: traceparentOf(plan.trace),
      attempt: o.n,
    },
    sink,
    o.stop,
    o.abandoned,
  );
  // Settled: the provider may end its invocation now (and the platform report it).
  sink.close();
  const settlement = settleIt(outcome);
  // A failure waits for the registry, so that the next call already sees the breaker or the
  // dead provider; successes are batched (health-reporter.ts).
  const verdict = o.cancelled() ? undefined : judge(outcome, settlement.error?.code);
  if (verdict) {
    // `at` is when the attempt started: the breaker ignores calls begun before it opened.
    await report(o.env, { provider: provider.provider, tool: plan.tool, at: startedAt, latency_ms: Date.now() - startedAt, ok: verdict.ok }, { dead: verdict.dead, urgent: provider.trial, background: o.background });
  }
  return { outcome, settlement };
}
