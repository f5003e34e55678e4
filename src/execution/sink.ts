import { RpcTarget } from "cloudflare:workers";
import type { AttemptSettled, EmittedEvent, ExecutionSink, StopSignal } from "../../providers/sdk/protocol.ts";
import type { ProviderOutcome, StopLatch } from "./provider-call.ts";
import type { RelaySink } from "./provider-relay.ts";

/**
 * The sink a provider receives (docs/contract.md#provider-execution): events in, stop notice out. The provider's first
 * use of it (the SDK asks for the stop notice as the handler starts) is its first sign of life.
 */
export class ExecutionSinkTarget extends RpcTarget implements ExecutionSink, RelaySink {
  #onEmit: (e: EmittedEvent) => void;
  #stop: StopLatch;
  #onAlive: (() => void) | undefined;
  #settle!: (answer: AttemptSettled) => void;
  readonly #settled: Promise<AttemptSettled>;
  readonly #abandoned: Promise<ProviderOutcome>;
  constructor(
    onEmit: (e: EmittedEvent) => void,
    stop: StopLatch,
    onAlive?: () => void,
    abandoned: Promise<ProviderOutcome> = new Promise(() => {}),
  ) {
    super();
    this.#onEmit = onEmit;
    this.#stop = stop;
    this.#onAlive = onAlive;
    this.#settled = new Promise((resolve) => (this.#settle = resolve));
    this.#abandoned = abandoned;
  }
  #alive(): void {
    const onAlive = this.#onAlive;
    this.#onAlive = undefined;
    onAlive?.();
  }
  async emit(event: EmittedEvent): Promise<void> {
    this.#alive();
    // A stopped attempt (timed out, cancelled, abandoned) may not write into the execution any
    // more: its events would interleave with the next attempt's. They are dropped quietly — the
    // provider has been told to stop — not thrown, which would log as an uncaught error.
    if (this.#stop.fired) return;
    this.#onEmit(event);
  }
  stopped(): Promise<StopSignal | AttemptSettled> {
    this.#alive();
    return Promise.race([this.#stop.signal, this.#settled]);
  }

  /**
   * For the relay the call goes through (src/execution/provider-relay.ts), not for the provider:
   * resolves when the runtime gives the attempt up (a forced cancel), and the relay then ends
   * its invocation, and the provider's with it. Not a sign of life.
   */
  abandoned(): Promise<ProviderOutcome> {
    return this.#abandoned;
  }

  /**
   * The attempt is settled: a `stopped()` call still waiting is answered (`settled`), so the
   * provider's invocation can end. Until then it stays open on the provider's side, and the
   * platform reports an invocation only once it has ended (its tail event, with its CPU time).
   * Seen under wrangler dev: a call from an execution object, whose life outlasts the call,
   * was never reported; a call from the edge ended with its request.
   */
  close(): void {
    this.#settle({ reason: "settled" });
  }
  /**
   * The stop notice without a sign of life: the upstream MCP adapter (src/upstreams/adapter.ts)
   * runs in the runtime's own isolate and must watch for the stop before its upstream has
   * answered anything; it calls `stopped()` once the upstream shows life.
   */
  stopNotice(): Promise<StopSignal> {
    return this.#stop.signal;
  }
}
