/**
 * Reports the outcome of each call to its provider's health shard (durable-objects/
 * health-object.ts) without putting the shard on the call's path (the statistics of
 * docs/contract.md#ranking, the breaker, liveness). Per isolate and per provider:
 *  - successes wait in a batch, sent every HEALTH_FLUSH_MS (5 s by default: the statistics reach
 *    edges at their TTL anyway) or BATCH samples;
 *  - a failure, an unreachable provider or a breaker trial's outcome is urgent: the call that
 *    has it sends it at once and waits for the answer, so the next call here already sees the
 *    breaker — unless an urgent report of this isolate is already on its way to that shard.
 *    Then it joins the batch, and the call whose report is on its way sends the batch when its
 *    answer comes (in its own background): a failure storm costs the shard one request per
 *    isolate per round trip, not one per failed call (docs/scale.md section 9.4).
 * Every answer is the provider's health view, which patches this isolate's snapshot copy at
 * once (src/registry/snapshot-cache.ts). A batch still waiting when the isolate goes away is
 * lost; the statistics are estimates and tolerate it. No call ever awaits another call's report:
 * Workers refuses one request awaiting another request's I/O.
 */
import { loadConfig } from "../config.ts";
import type { ProviderOutcome } from "../execution/provider-call.ts";
import { healthStub } from "../object-stubs.ts";
import type { HealthReport } from "./health-shard.ts";
import { policyOf } from "./health-view.ts";
import type { BreakerPolicy, DeadReport, Sample } from "./provider-health.ts";
import { applyHealthPatch, currentSnapshot, getSnapshot } from "./snapshot-cache.ts";

const BATCH = 50;
/** An urgent report not answered within this long no longer holds the others back. */
const IN_FLIGHT_MAX_MS = 10_000;

interface Pending {
  samples: Sample[];
  unreachable: DeadReport[];
  urgent: boolean;
}

const pending = new Map<string, Pending>();
/** Providers with an urgent report of this isolate on its way, and since when. */
const inFlight = new Map<string, number>();
let lastFlush = 0;

/**
 * What an outcome says about the provider: a sample (ok or not), whether it was a transport
 * failure (the Worker could not be reached: the shard calls a provider dead after
 * DEAD_AFTER_TRANSPORT_FAILURES of those in a row), or nothing (cancellations and the
 * caller's own refusals say nothing).
 */
export function judge(
  outcome: ProviderOutcome,
  errorCode: string | undefined,
): { ok: boolean; transport?: string } | undefined {
  switch (outcome.kind) {
    case "stopped":
    case "refused":
      // A refusal is the caller's (its arguments, its tenant's token): shared health stays put.
      return undefined;
    case "timeout":
      return { ok: false };
    case "unbound":
      return { ok: false, transport: outcome.message };
    case "rpc_failed":
      // Only a Worker that cannot be reached is a transport failure; a crash or a resource
      // limit is one failed call of a live provider.
      return outcome.failure.code === "sandbox_unavailable"
        ? { ok: false, transport: outcome.failure.message }
        : { ok: false };
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
 * Records one call's outcome. An urgent one (a failure, a dead provider, a breaker's trial)
 * has reached the shard when this resolves, unless another report to that shard is on its way
 * (then it rides the next one); others wait in the batch. The wait for a batch is kept alive by
 * the request that added the sample (`background`): Workers ends a request's timers with it,
 * and one request must not flush on another's behalf. Flushes are throttled to one per
 * HEALTH_FLUSH_MS per isolate.
 */
export async function report(
  env: Env,
  sample: Sample,
  options: { transport?: string; urgent: boolean; background: (p: Promise<unknown>) => void },
): Promise<void> {
  const p = pendingOf(sample.provider);
  p.samples.push(sample);
  if (options.transport) p.unreachable.push({ provider: sample.provider, at: sample.at, reason: options.transport });
  if (options.urgent || !sample.ok || options.transport) {
    p.urgent = true;
    if (onItsWay(sample.provider)) return;
    return sendUrgent(env, sample.provider, options.background);
  }
  if (p.samples.length >= BATCH) {
    options.background(send(env, sample.provider));
    return;
  }
  const flushMs = loadConfig(env).healthFlushMs;
  options.background(
    new Promise((resolve) => setTimeout(resolve, flushMs)).then(() => {
      if (Date.now() - lastFlush >= flushMs) return flushAll(env);
    }),
  );
}

/** Sends this provider's urgent batch, then whatever became urgent while it was on its way. */
async function sendUrgent(env: Env, provider: string, background: (p: Promise<unknown>) => void): Promise<void> {
  inFlight.set(provider, Date.now());
  try {
    await send(env, provider);
  } finally {
    inFlight.delete(provider);
  }
  if (pending.get(provider)?.urgent) background(sendUrgent(env, provider, background));
}

function onItsWay(provider: string): boolean {
  const since = inFlight.get(provider);
  return since !== undefined && Date.now() - since < IN_FLIGHT_MAX_MS;
}

async function flushAll(env: Env): Promise<void> {
  lastFlush = Date.now();
  await Promise.all(
    [...pending.keys()].filter((provider) => !onItsWay(provider)).map((provider) => send(env, provider)),
  );
}

async function send(env: Env, provider: string): Promise<void> {
  const batch = pending.get(provider);
  pending.delete(provider);
  if (!batch || (batch.samples.length === 0 && batch.unreachable.length === 0)) return;
  try {
    // An isolate that has not planned a call yet (an execution object's) reads the catalog
    // once, so that the shard judges each tool by its own breaker policy.
    if (!currentSnapshot() && batch.samples.length > 0) await getSnapshot(env);
    const report: HealthReport = {
      provider,
      samples: batch.samples,
      unreachable: batch.unreachable,
      policies: policiesOf(provider, batch.samples),
    };
    applyHealthPatch(await healthStub(env, provider).report(report));
  } catch (err) {
    console.warn(
      JSON.stringify({ msg: "health report lost", provider, samples: batch.samples.length, error: String(err) }),
    );
  }
}

function pendingOf(provider: string): Pending {
  let p = pending.get(provider);
  if (!p) pending.set(provider, (p = { samples: [], unreachable: [], urgent: false }));
  return p;
}

/** The breaker policies of the tools in a batch, from this isolate's copy of the catalog (the shard keeps the last it was told). */
function policiesOf(provider: string, samples: Sample[]): Record<string, BreakerPolicy> {
  const snapshot = currentSnapshot();
  const out: Record<string, BreakerPolicy> = {};
  for (const tool of new Set(samples.map((s) => s.tool))) {
    const policy = policyOf(snapshot, provider, tool);
    if (policy) out[tool] = policy;
  }
  return out;
}
