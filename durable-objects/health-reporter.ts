/**
 * Reports the outcome of each call to the registry without putting the registry on the
 * call's path (AIOS §5.2.1 statistics, §6.4 breaker, §5.2 liveness). Outcomes are batched
 * per isolate and sent every FLUSH_MS or BATCH samples; a failure, a dead provider or the
 * outcome of a breaker's trial call is sent at once, because the breaker must see it now.
 * Module state: every execution object in this isolate shares one batch. A batch still
 * waiting when the isolate goes away is lost; the statistics are estimates and tolerate it.
 */
import type { Env } from "../src/env.ts";
import type { ProviderOutcome } from "../src/pipeline/provider-execution.ts";
import type { Sample } from "../src/registry/provider-health.ts";
import { registryStub } from "../src/registry/snapshot-cache.ts";
import type { DeadReport } from "./registry-object.ts";

const BATCH = 50;
const FLUSH_MS = 2_000;

let samples: Sample[] = [];
let dead: DeadReport[] = [];
let timer: ReturnType<typeof setTimeout> | undefined;

/**
 * What an outcome says about the provider: a sample (ok or not), whether the provider is
 * dead, or nothing (cancellations say nothing about the provider).
 */
export function judge(outcome: ProviderOutcome, errorCode: string | undefined): { ok: boolean; dead?: string } | undefined {
  switch (outcome.kind) {
    case "stopped":
      return undefined;
    case "timeout":
      return { ok: false };
    case "unbound":
    case "rpc_failed":
      return { ok: false, dead: outcome.message };
    case "result":
      if (!outcome.result.ok) {
        const code = outcome.result.error.code;
        if (code === "cancelled") return undefined;
        return { ok: code === "tool_error" };
      }
      return { ok: errorCode !== "invalid_output" };
  }
}

/** Records one call's outcome; resolves once it has reached the registry when urgent. */
export async function report(env: Env, sample: Sample, options: { dead?: string; urgent: boolean }): Promise<void> {
  samples.push(sample);
  if (options.dead) dead.push({ provider: sample.provider, at: sample.at, reason: options.dead });
  if (options.urgent || !sample.ok || options.dead || samples.length >= BATCH) return flush(env);
  timer ??= setTimeout(() => void flush(env), FLUSH_MS);
}

async function flush(env: Env): Promise<void> {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  const batch = samples;
  const deadBatch = dead;
  samples = [];
  dead = [];
  if (batch.length === 0 && deadBatch.length === 0) return;
  try {
    await registryStub(env).report(batch, deadBatch);
  } catch (err) {
    console.warn(JSON.stringify({ msg: "health report lost", samples: batch.length, error: String(err) }));
  }
}
