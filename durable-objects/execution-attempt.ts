/**
 * One attempt of an execution (stage 6): a provider call with its own sink and stop latch,
 * settled (stage 7) and reported for the provider's health. And the in-memory state that one
 * execution keeps between its attempts.
 */
import { traceparentOf } from "../src/audit/trace.ts";
import type { Env, ProviderService } from "../src/env.ts";
import type { IntentDecision } from "../src/pipeline/capability.ts";
import { settle } from "../src/pipeline/delivery.ts";
import type { ExecutionPlan, PlannedProvider } from "../src/pipeline/dispatch.ts";
import { invokeProvider, StopLatch, type ProviderOutcome } from "../src/pipeline/provider-execution.ts";
import type { AttemptResult } from "../src/pipeline/retry.ts";
import type { EmittedEvent } from "../providers/sdk/protocol.ts";
import { ExecutionSinkTarget } from "./execution-sink.ts";
import type { ExecutionRecord } from "./execution-state.ts";
import { judge, report } from "./health-reporter.ts";

/** One execution's in-memory state: its stop latch, forced-cancel promise, intent and attempts. */
export interface RunState {
  stop: StopLatch;
  abandon: (outcome: ProviderOutcome) => void;
  abandoned: Promise<ProviderOutcome>;
  attemptInFlight: boolean;
  cancelledInFlight: boolean;
  intentVerdict?: IntentDecision;
  intentPending?: Promise<void>;
  attemptsDone?: Pick<ExecutionRecord, "attempts" | "provider">;
}

export function newRunState(): RunState {
  let abandon!: (outcome: ProviderOutcome) => void;
  const abandoned = new Promise<ProviderOutcome>((resolve) => (abandon = resolve));
  return { stop: new StopLatch(), abandon, abandoned, attemptInFlight: false, cancelledInFlight: false };
}

export interface AttemptDeps {
  env: Env;
  run: RunState;
  record: () => ExecutionRecord;
  onEmit: (event: EmittedEvent) => void;
}

export async function runAttempt(d: AttemptDeps, plan: ExecutionPlan, provider: PlannedProvider, timeoutMs: number, n: number): Promise<AttemptResult> {
  const { run } = d;
  const stop = new StopLatch();
  run.stop = stop;
  if (d.record().cancellation) stop.fire("cancelled");
  const sink = new ExecutionSinkTarget(d.onEmit, stop);
  const startedAt = Date.now();
  const settleIt = (outcome: ProviderOutcome) => {
    const r = d.record();
    return settle(outcome, { output_hash: r.output_hash, idempotent: r.idempotent, timeout_ms: r.timeout_ms, max_output_bytes: r.max_output_bytes });
  };
  // No budget left (the pipeline used it up): the provider is not called at all, so a side
  // effect cannot happen after the caller has been told it timed out.
  if (timeoutMs <= 0) return { outcome: { kind: "timeout" }, settlement: settleIt({ kind: "timeout" }) };
  run.attemptInFlight = true;
  const outcome = await invokeProvider(
    d.env[provider.binding] as ProviderService | undefined,
    {
      execution_id: plan.execution_id,
      tool: plan.tool,
      version: plan.version,
      input: plan.input,
      caller: { tenant: plan.tenant, agent: plan.agent },
      context: { ...plan.context, attempt: n },
      remaining_timeout_ms: timeoutMs,
      traceparent: traceparentOf(plan.trace),
    },
    sink,
    stop,
    run.abandoned,
  );
  run.attemptInFlight = false;
  const settlement = settleIt(outcome);
  // A failure waits for the registry, so that the next call already sees the breaker or the
  // dead provider; successes are batched (health-reporter.ts).
  const verdict = d.record().cancellation ? undefined : judge(outcome, settlement.error?.code);
  if (verdict) {
    // `at` is when the attempt started: the breaker ignores calls begun before it opened.
    await report(d.env, { provider: provider.provider, tool: plan.tool, at: startedAt, latency_ms: Date.now() - startedAt, ok: verdict.ok }, { dead: verdict.dead, urgent: provider.trial });
  }
  return { outcome, settlement };
}
