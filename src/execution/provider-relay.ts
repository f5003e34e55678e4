/**
 * A provider call a forced cancel can end (docs/contract.md#cancellation). workerd ends a
 * Worker's invocation when its caller's invocation ends, and never because its caller stopped
 * waiting or disposed the call (test/integration/abandoned-call.test.ts): an execution object
 * lives on after a cancel, so a call it makes itself runs until the handler returns. So the
 * object makes its provider calls through `ProviderRelay`, an invocation of this Worker that
 * exists only for one call: the relay calls the provider, and answers as soon as the object's
 * sink says the attempt is abandoned. Its invocation ends then, and the provider's with it: the
 * handler's pending work (timers, fetches, storage) never resumes, and its permit and its
 * tenant's slot go back at once. A handler busy on the CPU without awaiting anything is not
 * interrupted by this (not tried here): it stops at its next await, or at its `limits.cpu_ms`.
 *
 * Two things would keep the relay's invocation open after it has answered, and the provider's
 * with it (both seen in workerd): handing the provider the object's sink itself (a stub passed
 * on keeps its holder's invocation open while the provider holds it), so the provider gets a
 * sink of the relay's own that forwards; and answering a value that came out of an RPC call as
 * it is (workerd adds a disposer to such a value, and whoever receives it keeps the sender's
 * invocation open until it disposes it), so what the relay passes on is always a fresh copy.
 * Upstream MCP servers are not relayed: their adapter runs in the runtime's own code and stops
 * its upstream request on the stop notice.
 */
import { RpcTarget, WorkerEntrypoint } from "cloudflare:workers";
import type {
  EmittedEvent,
  ExecutionSink,
  StopSignal,
  AttemptSettled,
  ToolCall,
} from "../../providers/sdk/protocol.ts";
import { providerService } from "../config.ts";
import { direct, type Dispatch, type ProviderOutcome } from "./provider-call.ts";
import { classifyRpcFailure } from "./provider-failure.ts";

/** The object's sink as the relay sees it: the provider's sink, and the word that the attempt is abandoned. */
export interface RelaySink extends ExecutionSink {
  /** Resolves when the runtime gives the attempt up, with how it ends it. */
  abandoned(): Promise<ProviderOutcome>;
}

/** The relay, as the execution object calls it. */
export interface RelayService {
  invoke(binding: string, call: ToolCall, sink: RelaySink): Promise<ProviderOutcome>;
}

/** Forwards the provider's use of its sink to the execution object's. */
class ForwardingSink extends RpcTarget implements ExecutionSink {
  readonly #to: RelaySink;
  constructor(to: RelaySink) {
    super();
    this.#to = to;
  }
  async emit(event: EmittedEvent): Promise<void> {
    await this.#to.emit(event);
  }
  /**
   * A fresh copy of the object's answer. A call still waiting when the relay answers fails as
   * the relay lets go of the object's sink: by then the attempt is settled, and says so.
   */
  stopped(): Promise<StopSignal | AttemptSettled> {
    return this.#to.stopped().then(
      (stop): StopSignal | AttemptSettled => ({ ...stop }),
      (): AttemptSettled => ({ reason: "settled" }),
    );
  }
}

export class ProviderRelay extends WorkerEntrypoint<Env> {
  /** One provider call, over the binding named `binding`; answers its outcome, or how it was abandoned. */
  async invoke(binding: string, call: ToolCall, sink: RelaySink): Promise<ProviderOutcome> {
    const answered = direct(providerService(this.env, binding))(call, new ForwardingSink(sink));
    return { ...(await Promise.race([answered, sink.abandoned()])) };
  }
}

/** The relay of this Worker (its `ProviderRelay` export, reached through `ctx.exports`), if the platform offers one. */
export function relayOf(exports: unknown): RelayService | undefined {
  const relay: unknown = exports && typeof exports === "object" ? Reflect.get(exports, "ProviderRelay") : undefined;
  // A loopback binding is itself callable: typeof "function", not "object".
  return (typeof relay === "object" || typeof relay === "function") &&
    relay !== null &&
    typeof Reflect.get(relay, "invoke") === "function"
    ? (relay as RelayService)
    : undefined;
}

/** A call made through the relay with `sink`: ending the relay's invocation ends the provider's. */
export function relayed(relay: RelayService, binding: string, sink: RelaySink): Dispatch {
  return (call) =>
    relay.invoke(binding, call, sink).catch(
      // The relay itself failed (not the provider: the relay answers the provider's failures as outcomes).
      (err): ProviderOutcome => ({
        kind: "rpc_failed",
        failure: classifyRpcFailure(err),
        raw: String(err).slice(0, 1_000),
      }),
    );
}
