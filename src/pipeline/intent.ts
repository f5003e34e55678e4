/**
 * AIOS §5.3 level 2: intent verification by a service-bound verifier Worker. Synchronous
 * (blocking) for tools whose effects are write, delete or send; asynchronous (recorded,
 * never blocking) for read-only tools; skipped when no verifier is bound or it fails, which
 * leaves levels 1 and 3 to decide (AIOS: "best-effort").
 */
import type { Env, IntentVerifierService } from "../env.ts";
import type { IntentRequest, IntentVerdict } from "../../verifiers/intent/src/protocol.ts";
import { RuntimeError } from "../errors.ts";
import type { Offering } from "../registry/catalog.ts";
import { withTimeout } from "../with-timeout.ts";
import type { Caller, IntentDecision } from "./capability.ts";

const DESTRUCTIVE = new Set(["write", "delete", "send"]);
/** A verifier slower than this is treated as failed: the call is not held up longer. */
export const VERIFY_TIMEOUT_MS = 2_000;

export interface IntentCheck {
  decision: IntentDecision;
  /** For read-only tools: what to ask the verifier once the execution is under way. */
  background?: IntentRequest;
}

export async function checkIntent(env: Env, caller: Caller, offering: Offering, context: Record<string, unknown>): Promise<IntentCheck> {
  const verifier = env.INTENT_VERIFIER;
  if (!verifier || typeof verifier.verify !== "function") {
    return { decision: { verdict: "skipped", mode: "none", reason: "no intent verifier is bound" } };
  }
  const m = offering.manifest;
  const request: IntentRequest = { tenant: caller.tenant, agent: caller.agent, tool: m.name, version: m.version, effects: m.effects, context };
  if (!DESTRUCTIVE.has(m.effects)) {
    // Asked by the execution object alongside the provider call, and recorded with the end
    // of the execution: no extra request to the object, no extra write (bench/README.md).
    return { decision: { verdict: "pending", mode: "async", reason: "read-only tool: verified in the background" }, background: request };
  }
  let verdict;
  try {
    verdict = await ask(verifier, request);
  } catch (err) {
    return { decision: { verdict: "skipped", mode: "sync", reason: `the verifier failed: ${(err as Error).message}` } };
  }
  if (verdict.verdict === "misaligned") {
    throw new RuntimeError("forbidden", `the call does not fit what agent ${caller.agent} is for`, {
      level: 2,
      reason: verdict.reason,
      profile: verdict.profile,
    });
  }
  return { decision: { verdict: "aligned", mode: "sync", reason: verdict.reason, profile: verdict.profile } };
}

/** The asynchronous verdict for a read-only tool; never throws (a failure means "skipped"). */
export async function verifyInBackground(env: Env, request: IntentRequest): Promise<IntentDecision> {
  const verifier = env.INTENT_VERIFIER;
  if (!verifier) return { verdict: "skipped", mode: "async", reason: "no intent verifier is bound" };
  try {
    const v = await ask(verifier, request);
    return { verdict: v.verdict, mode: "async", reason: v.reason, profile: v.profile };
  } catch (err) {
    return { verdict: "skipped", mode: "async", reason: `the verifier failed: ${(err as Error).message}` };
  }
}

function ask(verifier: IntentVerifierService, request: IntentRequest): Promise<IntentVerdict> {
  return withTimeout(verifier.verify(request), VERIFY_TIMEOUT_MS, `the verifier did not answer within ${VERIFY_TIMEOUT_MS} ms`);
}
