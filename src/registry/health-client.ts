/**
 * How an isolate reaches a provider's health shard (durable-objects/health-object.ts), and the
 * half-open trial asked of it (docs/contract.md#circuit-breakers). Every answer carries the provider's health view,
 * which patches this isolate's snapshot copy at once: a refused trial is remembered (the view
 * says who holds it) rather than asked again by every call until the next refresh.
 */
import { healthStub } from "../object-stubs.ts";
import { policyOf } from "./health-view.ts";
import { applyHealthPatch, currentSnapshot } from "./snapshot-cache.ts";

/** Whether this call takes the provider's half-open trial; the answer patches this isolate's copy either way. */
export async function acquireTrial(env: Env, provider: string, tool: string): Promise<boolean> {
  const { granted, view } = await healthStub(env, provider).acquireTrial(
    tool,
    policyOf(currentSnapshot(), provider, tool),
  );
  applyHealthPatch(view);
  return granted;
}

/** Hands a granted trial back: the call never reached the provider. */
export async function returnTrial(env: Env, provider: string, tool: string): Promise<void> {
  applyHealthPatch(await healthStub(env, provider).returnTrial(tool));
}
