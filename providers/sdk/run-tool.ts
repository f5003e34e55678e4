/**
 * docs/contract.md#provider-execution: the provider side of one call. Runs a handler with an ordinary AbortSignal
 * wired to the runtime's stop notice, forwards emitted events in order, and turns the
 * handler's ending into an InvokeResult. Kept free of platform imports so it can be tested
 * under Node with any object that implements ExecutionSink.
 *
 * What leaves the provider is what the tool means to say: a ToolError's message, code and
 * details. Any other exception is logged here in full under a reference id, and the caller
 * gets only that id (docs/contract.md#errors: no internals in errors).
 */
import { ToolError, type ToolContext, type ToolDefinition } from "./define.ts";
import {
  INVOCATION_LOG,
  type ExecutionSink,
  type InvocationLogLine,
  type InvokeResult,
  type ProviderError,
  type ToolCall,
} from "./protocol.ts";

/** The reason a handler's signal carries when the runtime stops it. */
export class ToolStopped extends Error {
  readonly reason: "cancelled" | "timeout";
  constructor(reason: "cancelled" | "timeout") {
    super(reason === "timeout" ? "the time budget ran out" : "the caller cancelled the execution");
    this.name = "AbortError";
    this.reason = reason;
  }
}

/**
 * The line a provider logs once per invocation (protocol.ts INVOCATION_LOG): the runtime's tail
 * handler reads it from the platform's report of the invocation to know whose CPU time that is.
 */
export function invocationLogLine(call: ToolCall): InvocationLogLine {
  const attempt =
    typeof call.attempt === "number"
      ? call.attempt
      : typeof call.context?.attempt === "number"
        ? call.context.attempt
        : null;
  const line: InvocationLogLine = {
    msg: INVOCATION_LOG,
    execution_id: String(call.execution_id).slice(0, 100),
    attempt,
  };
  if (typeof call.report_nonce === "string") line.nonce = call.report_nonce.slice(0, 64);
  return line;
}

export async function runTool(def: ToolDefinition, call: ToolCall, sink: ExecutionSink): Promise<InvokeResult> {
  const startedAt = Date.now();
  const deadline = startedAt + Math.max(0, call.remaining_timeout_ms);
  const controller = new AbortController();

  // AbortSignal does not cross Workers RPC (docs/contract.md#provider-execution); the runtime resolves this promise instead.
  // When the call ends first, the pending RPC promise rejects as the sink is released.
  sink.stopped().then(
    (stop) => {
      if (stop.reason !== "settled") controller.abort(new ToolStopped(stop.reason));
    },
    () => {},
  );

  // Events go out one after another so they arrive in the order the handler emitted them.
  let delivered: Promise<void> = Promise.resolve();
  let emitFailure: unknown;
  const checkPartial = def.manifest.partial_merge === "append" ? appendShapeCheck(def.manifest.name) : undefined;
  const ctx: ToolContext = {
    emit(type, data) {
      if (type === "partial") checkPartial?.(data);
      delivered = delivered
        .then(() => sink.emit({ type, data }))
        .catch((e) => {
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
    if (err instanceof ToolError) return { ok: false, error: toolError(def, call, err), latency_us: latency() };
    // docs/contract.md#provider-execution: an unexpected exception is the provider crashing, not an answer.
    return { ok: false, error: crashed(call, err), latency_us: latency() };
  } finally {
    if (emitFailure) console.warn(JSON.stringify({ msg: "event delivery failed", execution_id: call.execution_id }));
  }
}

function toolError(def: ToolDefinition, call: ToolCall, err: ToolError): ProviderError {
  const declared = def.manifest.error_codes;
  // An undeclared code still reaches the caller (it is the tool's answer); the author hears of it.
  if (err.code !== undefined && !declared?.some((c) => c.code === err.code)) {
    console.warn(
      JSON.stringify({
        msg: "tool error code not declared in error_codes",
        tool: call.tool,
        version: call.version,
        tool_code: err.code,
        execution_id: call.execution_id,
      }),
    );
  }
  return {
    code: "tool_error",
    message: err.message,
    retryable: err.retryable,
    ...(err.code !== undefined ? { tool_code: err.code } : {}),
    ...(err.details !== undefined ? { details: err.details } : {}),
  };
}

const MAX_LOGGED_STACK = 4_000;

/** Logs the crash in full, one JSON line, and answers with its reference id only. */
function crashed(call: ToolCall, err: unknown): ProviderError {
  const ref = referenceId();
  console.error(
    JSON.stringify({
      msg: "handler failed",
      ref,
      tool: call.tool,
      version: call.version,
      execution_id: call.execution_id,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
      stack: err instanceof Error ? err.stack?.slice(0, MAX_LOGGED_STACK) : undefined,
    }),
  );
  return { code: "provider_crashed", message: `the handler failed (ref ${ref})`, details: { ref } };
}

/** 16 hex digits: unique enough to find one line in a provider's logs. */
function referenceId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * `partial_merge: "append"` (docs/contract.md#partial-output): each partial event adds items (an array) or text (a
 * string), one of the two for the whole call. Refused at emit time, in the handler's own
 * stack, so the author sees which emit was wrong.
 */
function appendShapeCheck(tool: string): (data: unknown) => void {
  let shape: "array" | "string" | undefined;
  return (data) => {
    const given = Array.isArray(data) ? "array" : typeof data === "string" ? "string" : undefined;
    if (given === undefined) {
      const what = data === null ? "null" : typeof data;
      throw new TypeError(
        `${tool} declares partial_merge "append": a partial event must carry a JSON array (items to append) or a string (text to add), not ${what}`,
      );
    }
    if (shape !== undefined && given !== shape) {
      throw new TypeError(
        `${tool} declares partial_merge "append" and its partial events so far were ${shape}s; a ${given} cannot be appended to them`,
      );
    }
    shape = given;
  };
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}
