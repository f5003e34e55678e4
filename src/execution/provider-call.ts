/**
 * Stage 6 (docs/contract.md#provider-execution), seen from the runtime: call the provider over its service binding
 * within the time budget. The same code runs at the edge (fast path) and in an execution
 * object; the caller supplies the sink and the stop latch.
 */
import type {
  ExecutionSink,
  InvokeResult,
  ProviderService,
  StopSignal,
  ToolCall,
} from "../../providers/sdk/protocol.ts";
import { callerRefusalOf, classifyRpcFailure, type CallerRefusal, type RpcFailure } from "./provider-failure.ts";

export type ProviderOutcome =
  | { kind: "result"; result: InvokeResult }
  | { kind: "timeout" }
  | { kind: "stopped"; reason: StopSignal["reason"] }
  | { kind: "unbound"; message: string }
  /** The RPC itself failed (the provider's Worker, not its handler): classified, its text kept for the log only. */
  | { kind: "rpc_failed"; failure: RpcFailure; raw: string }
  /** The provider turned the call down for the caller's own reason: the caller's failure, not the provider's. */
  | { kind: "refused"; refusal: CallerRefusal };

/** A one-shot notice to the provider that it should stop (docs/contract.md#provider-execution). */
export class StopLatch {
  readonly signal: Promise<StopSignal>;
  fired: StopSignal | undefined;
  private resolve!: (s: StopSignal) => void;
  constructor() {
    this.signal = new Promise((r) => (this.resolve = r));
  }
  fire(reason: StopSignal["reason"]): void {
    if (this.fired) return;
    this.fired = { reason };
    this.resolve(this.fired);
  }
}

/** How an attempt reaches its provider: the call's outcome, however the provider ended it. */
export type Dispatch = (call: ToolCall, sink: ExecutionSink) => Promise<ProviderOutcome>;

/** Straight over the provider's binding (or the upstream adapter): the caller's own invocation makes the call. */
export function direct(service: ProviderService | undefined): Dispatch {
  return (call, sink) => {
    if (!service || typeof service.invoke !== "function")
      return Promise.resolve({ kind: "unbound", message: "the provider's Worker is not bound to this runtime" });
    return service.invoke(call, sink).then(
      (result): ProviderOutcome => ({ kind: "result", result }),
      (err): ProviderOutcome => {
        const refusal = callerRefusalOf(err);
        return refusal
          ? { kind: "refused", refusal }
          : { kind: "rpc_failed", failure: classifyRpcFailure(err), raw: String(err).slice(0, 1_000) };
      },
    );
  };
}

/**
 * Calls the provider and settles on the first of: its answer, the end of the budget, or
 * `abandon` (the execution object giving up on it, e.g. when a cancel's grace period ends).
 */
export async function invokeProvider(
  dispatch: Dispatch,
  call: ToolCall,
  sink: ExecutionSink,
  stop: StopLatch,
  abandon: Promise<ProviderOutcome>,
  /** Told of the provider call's own end — which may be long after the runtime stopped waiting. */
  onReturned: (returned: Promise<unknown>) => void = () => {},
): Promise<ProviderOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = new Promise<ProviderOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), Math.max(0, call.remaining_timeout_ms));
  });
  const answered = dispatch(call, sink);
  onReturned(answered);
  try {
    const outcome = await Promise.race([answered, budget, abandon]);
    // The provider hears of the timeout over the same call, so a cooperative handler stops
    // its work too; the runtime does not wait for it.
    if (outcome.kind === "timeout") stop.fire("timeout");
    return outcome;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}
