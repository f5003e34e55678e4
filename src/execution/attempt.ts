/**
 * One attempt of an execution (stage 6): a provider call with its own sink and stop latch,
 * settled (stage 7) and reported for the provider's health. Runs wherever the execution runs.
 *
 * What counts against the provider (docs/contract.md#circuit-breakers): crashes, invalid output, transport
 * failures, and timeouts of attempts that had at least the tool's latency-class time to run.
 * A budget the caller chose shorter, a budget the runtime spent before dispatch, a tool_error
 * or a cancellation says nothing about the provider and reports nothing bad; a refusal (the
 * caller's arguments or its tenant's own upstream token turned down) reports nothing at all.
 */
import { attemptNonce } from "../audit/report-nonce.ts";
import { traceparentOf } from "../audit/trace.ts";
import { errorBody } from "../errors.ts";
import { judge, report } from "../registry/health-reporter.ts";
import type { EmittedEvent } from "../../providers/sdk/protocol.ts";
import type { ExecutionPlan, PlannedProvider } from "./execution-plan.ts";
import { direct, invokeProvider, StopLatch, type ProviderOutcome } from "./provider-call.ts";
import { relayed, type RelayService } from "./provider-relay.ts";
import type { AttemptResult } from "./retry.ts";
import { settle } from "./settle.ts";
import { ExecutionSinkTarget } from "./sink.ts";
import { returnTrial } from "./trial.ts";
import { serviceFor } from "../upstreams/provider-service.ts";
import { SHED_RETRY_MS, shedBelowMs } from "./shed.ts";

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
  /** Told of the provider's own call, which may outlive the attempt (a handler that ignores its stop). */
  onDispatched: (returned: Promise<unknown>) => void;
  /** Keeps work that outlives the attempt alive (the health batch). */
  background: (p: Promise<unknown>) => void;
  /**
   * Where the run has one (an execution object): provider Workers are called through it, so
   * that abandoning the attempt ends the provider's invocation (src/execution/provider-relay.ts).
   */
  relay?: RelayService;
}

export async function runAttempt(o: AttemptOptions): Promise<AttemptResult> {
  const { plan, provider } = o;
  const settleIt = (outcome: ProviderOutcome) =>
    settle(outcome, {
      output_hash: plan.output_hash,
      output_schema: plan.output_schema,
      idempotent: plan.idempotent,
      timeout_ms: plan.timeout_ms,
      max_output_bytes: plan.max_output_bytes,
    });
  if (o.n === 1 && o.timeoutMs < shedBelowMs(plan.timeout_ms)) {
    // The runtime's own queues and admission used the budget up (overload is shed, not
    // timed out: docs/contract.md#budgets): the provider is not called, and nothing is said about it.
    if (provider.trial) await returnTrial(o.env, provider.provider, plan.tool);
    const error = errorBody("overloaded", "the runtime could not dispatch the call within its budget; try again", {
      retry_after_ms: SHED_RETRY_MS,
      budget_left_ms: Math.max(0, o.timeoutMs),
    });
    return { outcome: { kind: "timeout" }, settlement: { status: "failed", error } };
  }
  // No budget left for a retry: the provider is not called at all, so a side effect cannot
  // happen after the caller has been told it timed out.
  if (o.timeoutMs <= 0) return { outcome: { kind: "timeout" }, settlement: settleIt({ kind: "timeout" }) };
  // The platform's CPU report of this invocation is believed only with it (src/audit/report-nonce.ts).
  const reportNonce = await attemptNonce(o.env, plan.execution_id, o.n, plan.tenant);
  const startedAt = Date.now();
  const sample = (ok: boolean) => ({
    provider: provider.provider,
    tool: plan.tool,
    at: startedAt,
    latency_ms: Date.now() - startedAt,
    ok,
  });
  // A half-open provider's trial is decided by its first sign of life (it takes the call), not
  // by the end of a long run: the breaker closes then, and other calls flow again.
  let trialDecided = !provider.trial;
  let aliveReported: Promise<void> | undefined;
  const onAlive = () => {
    if (trialDecided) return;
    trialDecided = true;
    aliveReported = report(o.env, sample(true), { urgent: true, background: o.background });
    o.background(aliveReported);
  };
  const sink = new ExecutionSinkTarget(o.onEmit, o.stop, onAlive, o.abandoned);
  const dispatch =
    o.relay && !provider.upstream ? relayed(o.relay, provider.binding, sink) : direct(serviceFor(o.env, provider));
  const outcome = await invokeProvider(
    dispatch,
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
      report_nonce: reportNonce,
    },
    sink,
    o.stop,
    o.abandoned,
    o.onDispatched,
  );
  // Settled: the provider may end its invocation now (and the platform report it).
  sink.close();
  const settlement = settleIt(outcome);
  // A timeout is the provider's fault only if the attempt had the tool's own time to run.
  const fairTimeout = outcome.kind !== "timeout" || o.timeoutMs >= plan.class_timeout_ms;
  const verdict = o.cancelled() || !fairTimeout ? undefined : judge(outcome, settlement.error?.code);
  // A trial already decided by a sign of life needs no second good sample at the end.
  if (verdict && !(provider.trial && trialDecided && verdict.ok)) {
    // A failure waits for the registry, so that the next call already sees the breaker or the
    // dead provider; successes are batched (health-reporter.ts). `at` is when the attempt
    // started: the breaker ignores calls begun before it opened.
    await report(o.env, sample(verdict.ok), {
      transport: verdict.transport,
      urgent: provider.trial && !trialDecided,
      background: o.background,
    });
  } else if (provider.trial && !trialDecided) {
    // The trial never reached a decision (cancelled, or a budget the caller cut short): hand it back.
    await returnTrial(o.env, provider.provider, plan.tool);
  }
  // A trial that ended before its report was answered: this call answers once this isolate's
  // copy shows the breaker closed (the report is this call's own; no other call waits on it).
  await aliveReported;
  return { outcome, settlement };
}
