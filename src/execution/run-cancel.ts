/**
 * How a cancelled run ends (docs/contract.md#cancellation): `cooperative` when the provider
 * stopped, or nothing was running; `forced` when a running provider had to be abandoned after
 * its grace period.
 */
import type { CancellationOutcome } from "../contract.ts";
import { errorBody } from "../errors.ts";
import type { ProviderOutcome } from "./provider-call.ts";
import type { Settlement } from "./settle.ts";

/** `inFlight`: a provider was running when the cancel came; `last`: how the last attempt ended. */
export function cancelledEnd(
  last: ProviderOutcome,
  inFlight: boolean,
  who: { execution_id: string; tool: string; provider: string },
): { settlement: Settlement; outcome: CancellationOutcome } {
  // Whatever the provider did after the stop notice, the caller asked to cancel. Forced
  // only if a provider was running when the cancel came and had to be abandoned; a cancel
  // during a retry's backoff stopped nothing that was running.
  const forced = inFlight && (last.kind === "stopped" || last.kind === "timeout");
  const message = forced
    ? "the execution was cancelled; the provider did not stop within the grace period"
    : "the execution was cancelled";
  // Expected, not a fault: said once, as a line of its own (docs/contract.md#cancellation), never as an uncaught error.
  if (forced)
    console.log(
      JSON.stringify({
        msg: "cancel forced: the provider did not stop within the grace period",
        execution_id: who.execution_id,
        tool: who.tool,
        provider: who.provider,
      }),
    );
  return {
    settlement: { status: "cancelled", error: errorBody("cancelled", message) },
    outcome: forced ? "forced" : "cooperative",
  };
}
