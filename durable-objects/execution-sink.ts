import { RpcTarget } from "cloudflare:workers";
import type { StopLatch } from "../src/pipeline/provider-execution.ts";
import type { EmittedEvent, ExecutionSink, StopSignal } from "../providers/sdk/protocol.ts";

/** The sink a provider receives (DESIGN.md 6): events in, stop notice out. */
export class ExecutionSinkTarget extends RpcTarget implements ExecutionSink {
  #onEmit: (e: EmittedEvent) => void;
  #stop: StopLatch;
  constructor(onEmit: (e: EmittedEvent) => void, stop: StopLatch) {
    super();
    this.#onEmit = onEmit;
    this.#stop = stop;
  }
  async emit(event: EmittedEvent): Promise<void> {
    // A stopped attempt (timed out, abandoned) may not write into the execution any more:
    // its events would interleave with the next attempt's.
    if (this.#stop.fired) throw new Error("this attempt was stopped; its events are no longer taken");
    this.#onEmit(event);
  }
  stopped(): Promise<StopSignal> {
    return this.#stop.signal;
  }
}
