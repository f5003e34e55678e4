/**
 * The execution service's boundary (src/execution/service.ts): every answer is an Outcome value,
 * a stage's RuntimeError becomes a refusal, anything else is logged and answered `internal`.
 */
import type { Caller, Outcome } from "../contract.ts";
import { errorBody, RuntimeError } from "../errors.ts";

/** What a read, a cancel or a decision needs of its caller's context. */
export interface ServiceContext {
  env: Env;
  caller: Caller;
}

export function notFound(executionId: string): RuntimeError {
  // Unknown, expired and other tenants' ids all answer the same (docs/contract.md#routes).
  return new RuntimeError("execution_not_found", `no execution ${executionId}`, { execution_id: executionId });
}

export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** The service's one boundary: a stage's RuntimeError becomes a refusal value; anything else is logged and answered `internal`. */
export async function guard<T>(fn: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof RuntimeError) return { ok: false, error: err.toBody() };
    const ref = crypto.randomUUID();
    console.error(
      JSON.stringify({ msg: "execution service failed", ref, error: String(err), stack: (err as Error)?.stack }),
    );
    return { ok: false, error: errorBody("internal", "the runtime failed while handling the call", { ref }, false) };
  }
}
