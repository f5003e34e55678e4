/**
 * AIOS §5.6: the provider side of one call. Runs a handler with an ordinary AbortSignal
 * wired to the runtime's stop notice, forwards emitted events in order, and turns the
 * handler's ending into an InvokeResult. Kept free of platform imports so it can be tested
 * under Node with any object that implements ExecutionSink.
 */
import { ToolError, type ToolContext, type ToolDefinition } from "./define.ts";
import type { ExecutionSink, InvokeResult, ToolCall } from "./protocol.ts";

/** The reason a handler's signal carries when the runtime stops it. */
export class ToolStopped extends Error {
  readonly reason: "cancelled" | "timeout";
  constructor(reason: "cancelled" | "timeout") {
    super(reason === "timeout" ? "the time budget ran out" : "the caller cancelled the execution");
    this.name = "AbortError";
    this.reason = reason;
  }
}

export async function runTool(def: ToolDefinition, call: ToolCall, sink: ExecutionSink): Promise<InvokeResult> {
  const startedAt = Date.now();
  const deadline = startedAt + Math.max(0, call.remaining_timeout_ms);
  const controller = new AbortController();

  // DESIGN.md 6: AbortSignal does not cross RPC; the runtime resolves this promise instead.
  // When the call ends first, the pending RPC promise rejects as the sink is released.
  sink.stopped().then(
    (stop) => controller.abort(new ToolStopped(stop.reason)),
    () => {},
  );

  // Events go out one after another so they arrive in the order the handler emitted them.
  let delivered: Promise<void> = Promise.resolve();
  let emitFailure: unknown;
  const ctx: ToolContext = {
    emit(type, data) {
      delivered = delivered.then(() => sink.emit({ type, data })).catch((e) => {
        emitFailure ??= e;
      });
    },
    signal: controller.signal,
    remainingMs: () => Math.max(0, deadline - Date.now()),
    caller: call.caller,
    executionId: call.execution_id,
    context: call.context ?? {},
    traceparent: call.traceparent,
  };

  const latency = () => (Date.now() - startedAt) * 1000;
  try {
    const output = await def.handler(call.input, ctx);
    await delivered;
    return { ok: true, output: output === undefined ? null : output, latency_us: latency() };
  } catch (err) {
    await delivered;
    if (controller.signal.aborted && (err === controller.signal.reason || isAbortError(err))) {
      return {
        ok: false,
        error: { code: "cancelled", message: (controller.signal.reason as Error).message },
        latency_us: latency(),
      };
    }
    if (err instanceof ToolError) {
      return {
        ok: false,
        error: { code: "tool_error", message: err.message, retryable: err.retryable, details: err.details },
        latency_us: latency(),
      };
    }
    // AIOS §5.6: an unexpected exception is the provider crashing, not an answer.
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return {
      ok: false,
      error: { code: "provider_crashed", message: `the handler threw ${message.slice(0, 500)}` },
      latency_us: latency(),
    };
  } finally {
    if (emitFailure) console.warn(JSON.stringify({ msg: "event delivery failed", execution_id: call.execution_id }));
  }
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
