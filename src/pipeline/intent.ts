/**
 * AIOS §5.3 level 2: intent verification by a service-bound verifier Worker. Synchronous
 * (blocking) for tools whose effects are write, delete or send; asynchronous (recorded,
 * never blocking) for read-only tools; skipped when no verifier is bound or it fails, which
 * leaves levels 1 and 3 to decide (AIOS: "best-effort").
 */
import type { Env } from "../env.ts";
import { RuntimeError } from "../errors.ts";
import type { Offering } from "../registry/catalog.ts";
import { withTimeout } from "../with-timeout.ts";
import type { Caller, IntentDecision } from "./capability.ts";

const DESTRUCTIVE = new Set(["write", "delete", "send"]);
/** A verifier slower than this is treated as failed: the call is not held up longer. */
export const VERIFY_TIMEOUT_MS = 2_000;

export interface IntentCheck {
  decision: IntentDecision;
  /** For read-only tools: the verdict, once the verifier answers. */
  later?: Promise<IntentDecision>;
}

export async function checkIntent(env: Env, caller: Caller, offering: Offering, context: Record<string, unknown>): Promise<IntentCheck> {
  const verifier = env.INTENT_VERIFIER;
  if (!verifier || typeof verifier.verify !== "function") {
    return { decision: { verdict: "skipped", mode: "none", reason: "no intent verifier is bound" } };
  }
  const m = offering.manifest;
  const ask = () =>
    withTimeout(
      verifier.verify({ tenant: caller.tenant, agent: caller.agent, tool: m.name, version: m.version, effects: m.effects, context }),
      VERIFY_TIMEOUT_MS,
      `the verifier did not answer within ${VERIFY_TIMEOUT_MS} ms`,
    );
  if (!DESTRUCTIVE.has(m.effects)) {
    const later = ask().then(
      (v): IntentDecision => ({ verdict: v.verdict, mode: "async", reason: v.reason, profile: v.profile }),
      (err): IntentDecision => ({ verdict: "skipped", mode: "async", reason: `the verifier failed: ${(err as Error).message}` }),
    );
    return { decision: { verdict: "pending", mode: "async", reason: "read-only tool: verified in the background" }, later };
  }
  let verdict;
  try {
    verdict = await ask();
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
