/**
 * docs/contract.md#capabilities level 2: intent verification by a service-bound verifier Worker. Synchronous
 * (blocking) for tools whose effects are write, delete or send; asynchronous for read-only
 * tools ("logged, verified in background"); skipped when no verifier is bound. When the bound
 * verifier fails or is late, the operator's VERIFIER_FAILURE_POLICY decides per effect: skip
 * (levels 1 and 3 decide: level 2 is best-effort; the default) or refuse the call
 * (src/pipeline/verifier-policy.ts). Either way the event is counted for /metrics
 * (`tool_runtime_intent_skipped_total` / `_refused_total`, through the audit queue).
 *
 * Read-only calls use a verdict cache per tenant, agent and tool version (VERDICT_TTL_MS): a
 * call finds the verdict of an earlier one and records it (`cached: true`); a miss records
 * `pending`, asks the verifier in the background, caches the answer, and sends it to the
 * audit log for that execution. So a read-only call costs no verifier round trip in the
 * common case, and every verdict still reaches the audit. The verifier sees the tool, its
 * effects, the agent and the context — never the input; a cached verdict was made for the
 * same agent and tool with an earlier call's context.
 */
import type { Caller, IntentDecision } from "../contract.ts";
import type { IntentRequest, IntentVerdict } from "../../verifiers/intent/src/protocol.ts";
import { RuntimeError } from "../errors.ts";
import type { Offering } from "../registry/catalog.ts";
import { withTimeout } from "../with-timeout.ts";
import { sendAudit } from "../audit/outbox.ts";
import { countIntentUnverified } from "../audit/refusal-counter.ts";
import { loadConfig } from "../config.ts";

const DESTRUCTIVE = new Set(["write", "delete", "send"]);
/** Retry-After of a call refused because the verifier could not decide it. */
const UNVERIFIED_RETRY_MS = 5_000;
/** A verifier slower than this is treated as failed: the call is not held up longer. */
export const VERIFY_TIMEOUT_MS = 2_000;
/** How long a read-only verdict is reused for the same tenant, agent and tool version. */
export const VERDICT_TTL_MS = 60_000;
const MAX_CACHED = 10_000;

interface Verifier {
  verify(request: IntentRequest): Promise<IntentVerdict>;
}

const cache = new Map<string, { decision: IntentDecision; expires: number }>();
const asking = new Set<string>();

/** The bound verifier; the binding is optional (remove it and level 2 is skipped). */
function verifierOf(env: Env): Verifier | undefined {
  const v: Verifier | undefined = env.INTENT_VERIFIER;
  return v && typeof v.verify === "function" ? v : undefined;
}

function requestOf(caller: Caller, offering: Offering, context: Record<string, unknown>): IntentRequest {
  const m = offering.manifest;
  return { tenant: caller.tenant, agent: caller.agent, tool: m.name, version: m.version, effects: m.effects, context };
}

/** Level 2 for the call about to be planned. Throws `forbidden` when a destructive call is misaligned. */
export async function checkIntent(
  env: Env,
  caller: Caller,
  offering: Offering,
  context: Record<string, unknown>,
  executionId: string,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<IntentDecision> {
  const verifier = verifierOf(env);
  if (!verifier) return { verdict: "skipped", mode: "none", reason: "no intent verifier is bound" };
  const request = requestOf(caller, offering, context);
  const refuses = loadConfig(env).verifierFailurePolicy[offering.manifest.effects] === "refuse";
  if (!DESTRUCTIVE.has(request.effects)) {
    // A read-only call is verified in the background, unless a failure must refuse it: then
    // before it runs, whenever no cached verdict decides it.
    const cached = cachedVerdict(request, executionId);
    if (cached) return cached;
    if (!refuses) return readOnly(env, verifier, request, executionId, waitUntil);
  }
  const answer = await ask(verifier, request, "sync");
  if (answer.failure) {
    countIntentUnverified(env, waitUntil ?? (() => {}), {
      effect: request.effects,
      reason: answer.failure,
      action: refuses ? "refuse" : "skip",
    });
    if (refuses) throw unverified(request, answer.decision);
  } else if (!DESTRUCTIVE.has(request.effects)) {
    remember(request, answer.decision);
  }
  const decision = answer.decision;
  if (decision.verdict === "misaligned") {
    if (!DESTRUCTIVE.has(request.effects)) {
      warn(request, executionId, decision); // a read-only call is warned about, never blocked
      return decision;
    }
    throw new RuntimeError("forbidden", `the call does not fit what agent ${caller.agent} is for`, {
      level: 2,
      reason: decision.reason,
      profile: decision.profile,
    });
  }
  return decision;
}

/** Dry run: the verdict now, whatever the tool's effects (nothing is cached or blocked). */
export async function verifyNow(
  env: Env,
  caller: Caller,
  offering: Offering,
  context: Record<string, unknown>,
): Promise<IntentDecision> {
  const verifier = verifierOf(env);
  if (!verifier) return { verdict: "skipped", mode: "none", reason: "no intent verifier is bound" };
  const request = requestOf(caller, offering, context);
  const answer = await ask(verifier, request, DESTRUCTIVE.has(offering.manifest.effects) ? "sync" : "async");
  // The policy as the call would meet it (a dry run counts nothing: nothing ran or was refused).
  if (answer.failure && loadConfig(env).verifierFailurePolicy[offering.manifest.effects] === "refuse")
    throw unverified(request, answer.decision);
  return answer.decision;
}

function unverified(request: IntentRequest, decision: IntentDecision): RuntimeError {
  return new RuntimeError(
    "overloaded",
    `the intent verifier could not decide this ${request.effects} call, and the operator's policy refuses such calls then`,
    {
      level: 2,
      reason: "verifier_unavailable",
      verifier: decision.reason,
      retry_after_ms: UNVERIFIED_RETRY_MS,
    },
  );
}

function verdictKey(request: IntentRequest): string {
  return `${request.tenant}\u0000${request.agent}\u0000${request.tool}@${request.version}`;
}

/** A read-only call's cached verdict (warned about when misaligned), or undefined. */
function cachedVerdict(request: IntentRequest, executionId: string): IntentDecision | undefined {
  const hit = cache.get(verdictKey(request));
  if (!hit || hit.expires <= Date.now()) return undefined;
  if (hit.decision.verdict === "misaligned") warn(request, executionId, hit.decision);
  return { ...hit.decision, cached: true };
}

function remember(request: IntentRequest, decision: IntentDecision): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  if (decision.verdict !== "skipped")
    cache.set(verdictKey(request), { decision, expires: Date.now() + VERDICT_TTL_MS });
}

/** A cache miss of a read-only call: `pending` now, the verdict asked for in the background. */
function readOnly(
  env: Env,
  verifier: Verifier,
  request: IntentRequest,
  executionId: string,
  waitUntil?: (p: Promise<unknown>) => void,
): IntentDecision {
  const key = verdictKey(request);
  if (!asking.has(key)) {
    asking.add(key);
    const verdict = ask(verifier, request, "async").then(async ({ decision, failure }) => {
      if (failure)
        countIntentUnverified(env, waitUntil ?? (() => {}), {
          effect: request.effects,
          reason: failure,
          action: "skip",
        });
      remember(request, decision);
      if (decision.verdict === "misaligned") warn(request, executionId, decision);
      // The execution was recorded as `pending`; its audit record learns the verdict now.
      await sendAudit(env, { kind: "intent", execution_id: executionId, decision, tenant: request.tenant });
    });
    const settled = verdict.finally(() => asking.delete(key));
    waitUntil?.(settled);
  }
  return { verdict: "pending", mode: "async", reason: "read-only tool: verified in the background" };
}

/** The verifier's verdict, or `skipped` with why (`failure`: it threw, or it was late). */
async function ask(
  verifier: Verifier,
  request: IntentRequest,
  mode: "sync" | "async",
): Promise<{ decision: IntentDecision; failure?: "error" | "timeout" }> {
  const late = `the verifier did not answer within ${VERIFY_TIMEOUT_MS} ms`;
  try {
    const v = await withTimeout(verifier.verify(request), VERIFY_TIMEOUT_MS, late);
    return { decision: { verdict: v.verdict, mode, reason: v.reason, profile: v.profile } };
  } catch (err) {
    const message = (err as Error).message;
    return {
      decision: { verdict: "skipped", mode, reason: `the verifier failed: ${message}` },
      failure: message === late ? "timeout" : "error",
    };
  }
}

function warn(request: IntentRequest, executionId: string, decision: IntentDecision): void {
  console.warn(
    JSON.stringify({
      msg: "intent misaligned",
      execution_id: executionId,
      tool: request.tool,
      agent: request.agent,
      ...decision,
    }),
  );
}

/** Forgets cached verdicts (tests; a changed verifier profile). */
export function forgetVerdicts(): void {
  cache.clear();
}
