/**
 * What level 2 does when the intent verifier fails or does not answer within VERIFY_TIMEOUT_MS,
 * chosen by the operator per effect (VERIFIER_FAILURE_POLICY, JSON): `skip` lets levels 1 and
 * 3 decide alone (level 2 is best-effort; the default for every effect), `refuse` refuses the
 * call (`overloaded`, retryable). A missing INTENT_VERIFIER binding is the operator's choice
 * of no level 2 at all, not a failure: it skips whatever the policy says.
 *
 *   VERIFIER_FAILURE_POLICY = {"delete": "refuse", "send": "refuse", "write": "skip"}
 *
 * `read` may be `refuse` too: a read-only call is then verified before it runs whenever no
 * cached verdict exists (as a destructive one always is), instead of in the background.
 */
import { EFFECTS, type Effect } from "../../providers/sdk/protocol.ts";

export type VerifierFailureAction = "skip" | "refuse";
export type VerifierFailurePolicy = Record<Effect, VerifierFailureAction>;

const ACTIONS: readonly VerifierFailureAction[] = ["skip", "refuse"];

/** Checks a VERIFIER_FAILURE_POLICY value (already parsed from JSON); an effect it leaves out skips. */
export function parseVerifierFailurePolicy(value: unknown): VerifierFailurePolicy {
  const policy: VerifierFailurePolicy = { read: "skip", write: "skip", delete: "skip", send: "skip" };
  if (value === undefined || value === null || value === "") return policy;
  if (typeof value !== "object" || Array.isArray(value))
    throw new Error('must be an object of effect → "skip" | "refuse"');
  for (const [effect, action] of Object.entries(value)) {
    if (!(EFFECTS as readonly string[]).includes(effect))
      throw new Error(`${effect} is not an effect (${EFFECTS.join(", ")})`);
    if (!(ACTIONS as readonly unknown[]).includes(action))
      throw new Error(`${effect} must be "skip" or "refuse", not ${JSON.stringify(action)}`);
    policy[effect as Effect] = action as VerifierFailureAction;
  }
  return policy;
}
