-- Calls whose intent the verifier did not decide (src/pipeline/intent.ts), per effect, reason
-- (error, timeout) and what VERIFIER_FAILURE_POLICY did (skip, refuse): /metrics reads it.
CREATE TABLE IF NOT EXISTS intent_unverified (effect TEXT NOT NULL, reason TEXT NOT NULL, action TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (effect, reason, action));
