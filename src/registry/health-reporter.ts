/**
 * Reports the outcome of each call to the registry without putting the registry on the
 * call's path (AIOS §5.2.1 statistics, §6.4 breaker, §5.2 liveness). Outcomes are batched
 * per isolate and sent every FLUSH_MS or BATCH samples; a failure, a dead provider or the
 * outcome of a breaker's trial call is sent at once, because the breaker must see it now.
 * Module state: every execution object in this isolate shares one batch. A batch still
 * waiting when the isolate goes away is lost; the statistics are estimates and tolerate it.
 */
import type { ProviderOutcome } from "../execution/provider-call.ts";
import type { DeadReport, Sample } from "./provider-health.ts";
import { registryStub } from "./snapshot-cache.ts";

const BATCH = 50;
const FLUSH_MS = 2_000;

let samples: Sample[] = [];
let dead: DeadReport[] = [];
let lastFlush = 0;

/**
 * What an outcome says about the provider: a sample (ok or not), whether it was a transport
 * failure (the Worker could not be reached: the registry calls a provider dead after
 * DEAD_AFTER_TRANSPORT_FAILURES of those in a row), or nothing (cancellations say nothing).
 */
export function judge(outcome: ProviderOutcome, errorCode: string | undefined): { ok: boolean; transport?: string } | undefined {
  switch (outcome.kind) {
    case "stopped":
      return undefined;
    case "timeout":
      return { ok: false };
    case "unbound":
      return { ok: false, transport: outcome.message };
    case "rpc_failed":
      // Only a Worker that cannot be reached is a transport failure; a crash or a resource
      // limit is one failed call of a live provider.
      return outcome.failure.code === "sandbox_unavailable" ? { ok: false, transport: outcome.failure.message } : { ok: false };
    case "result":
      if (!outcome.result.ok) {
        const code = outcome.result.error.code;
        if (code === "cancelled") return undefined;
        return { ok: code === "tool_error" };
      }
      return { ok: errorCode !== "invalid_output" };
  }
}

/**
 * Records one call's outcome. Urgent outcomes (failures, a dead provider, a breaker's trial)
 * reach the registry before this resolves; others wait in the batch. The wait for a batch is
 * kept alive by the request that added the sample (`background`): Workers ends a request's
 * timers with it, and one request must not flush on another's behalf. Flushes are throttled
 * to one per FLUSH_MS per isolate.
 */
export async function report(env: Env, sample: Sample, options: { transport?: string; urgent: boolean; background: (p: Promise<unknown>) => void }): Promise<void> {
  samples.push(sample);
  if (options.transport) dead.push({ provider: sample.provider, at: sample.at, reason: options.transport });
  if (options.urgent || !sample.ok || options.transport || samples.length >= BATCH) return flush(env);
  options.background(
    new Promise((resolve) => setTimeout(resolve, FLUSH_MS)).then(() => {
      if (samples.length > 0 && Date.now() - lastFlush >= FLUSH_MS) return flush(env);
    }),
  );
}

async function flush(env: Env): Promise<void> {
  const batch = samples;
  const deadBatch = dead;
  samples = [];
  dead = [];
  if (batch.length === 0 && deadBatch.length === 0) return;
  lastFlush = Date.now();
  try {
    await registryStub(env).report(batch, deadBatch);
  } catch (err) {
    console.warn(JSON.stringify({ msg: "health report lost", samples: batch.length, error: String(err) }));
  }
}
