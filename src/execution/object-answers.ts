/** The refusals the execution object answers with (durable-objects/execution-object.ts), as `Outcome` values. */
import type { Outcome, Value } from "../contract.ts";
import { errorBody, RuntimeError } from "../errors.ts";

export function refusal<T>(
  code: Parameters<typeof errorBody>[0],
  message: string,
  details?: Record<string, unknown>,
): Outcome<T> {
  return { ok: false, error: errorBody(code, message, details as Record<string, Value>) };
}

/** An execution serves at most MAX_SUBSCRIBERS streams at once (src/stream/fanout.ts); one more is refused. */
export function subscribersFull<T>(): Outcome<T> {
  return refusal("rate_limited", "this execution has as many stream subscribers as it serves", {
    reason: "subscribers",
    retry_after_ms: 5_000,
  });
}

/** A runtime error's own body; anything else is logged and answers `internal`. */
export function internalBody(err: unknown) {
  if (err instanceof RuntimeError) return err.toBody();
  console.error(JSON.stringify({ msg: "execution object failed", error: String(err) }));
  return errorBody("internal", "the runtime failed while starting the execution");
}

export function internal<T>(err: unknown): Outcome<T> {
  return { ok: false, error: internalBody(err) };
}

/** A waiting execution whose plan storage no longer holds ends with this: it never ran. */
export function lostPlan() {
  return errorBody(
    "internal",
    "the waiting execution's plan was lost; it never ran",
    { reason: "plan missing" },
    false,
  );
}
