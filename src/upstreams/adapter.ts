/**
 * An upstream MCP server as a provider (docs/contract.md#upstreams): the same `invoke(call, sink)` a
 * provider Worker offers over RPC, so stage 6-7 (run, attempt, retry, settle, health) treat it
 * like any other. `tools/call` goes to the upstream with the remaining budget; its progress
 * notifications become `progress` events and its log messages `log` events; the stop notice
 * (a cancel, the budget's end) aborts the request, which closes it (2026-07-28: closing is the
 * cancellation) and, toward a 2025 server, sends `notifications/cancelled` first.
 *
 * Output: the approved definition's output schema makes `structuredContent` the output (stage 7
 * checks it against that schema: a server that lies about its output gets `invalid_output`);
 * without one the output is `{content}`, MCP's content blocks as they came.
 */
import type {
  AttemptSettled,
  ExecutionSink,
  InvokeResult,
  ProviderManifest,
  ProviderService,
  StopSignal,
  ToolCall,
  Value,
} from "../../providers/sdk/protocol.ts";
import { authorizationFor, type CallAuthorization } from "./authorization.ts";
import { connectUpstream, type Connection } from "./client.ts";
import { type JsonObject, paramHeaders, resultObject, WireError } from "./mcp-wire.ts";
import { classifyUpstreamError, UpstreamFailure, UpstreamRefusal } from "./failures.ts";
import type { UpstreamTarget } from "./target.ts";

/** Asked of an upstream that sends log messages: everything from `info` up. */
const LOG_LEVEL = "info";
/** The client's own request timeout is set past the budget: the run's budget decides, not the client. */
const TIMEOUT_SLACK_MS = 1_000;

/** MCP's `tools/call` result, as far as the adapter reads it. */
export interface CallToolResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}

export class UpstreamProvider implements ProviderService {
  readonly #env: Env;
  readonly #target: UpstreamTarget;

  constructor(env: Env, target: UpstreamTarget) {
    this.#env = env;
    this.#target = target;
  }

  /** An upstream's tools are listed by the registry (src/upstreams/discovery.ts), not by a manifest. */
  async manifest(): Promise<ProviderManifest> {
    throw new Error("an upstream MCP server has no manifest; the registry lists its tools");
  }

  async invoke(call: ToolCall, sink: ExecutionSink): Promise<InvokeResult> {
    const started = Date.now();
    const target = this.#target;
    const stop = new AbortController();
    // A settled attempt is over: nothing to stop, and no cancellation to send upstream.
    watchStop(sink).then(
      (s) => s.reason !== "settled" && stop.abort(s.reason),
      () => {},
    );
    // The upstream's first answer (a notification or the result) is its sign of life, as a
    // provider's first use of the sink is: a half-open breaker's trial is decided by it.
    let alive = false;
    const life = () => {
      if (alive) return;
      alive = true;
      sink.stopped().catch(() => {});
    };
    const emit = (type: "progress" | "log", data: Value) => {
      life();
      sink.emit({ type, data }).catch(() => {});
    };

    let auth: CallAuthorization = { credential: "none" };
    let connection: Connection | undefined;
    try {
      auth = await authorizationFor(this.#env, target, call.caller.tenant);
      const timeoutMs = Math.max(1, call.remaining_timeout_ms) + TIMEOUT_SLACK_MS;
      connection = await connectUpstream(this.#env, target, {
        authorization: auth.header,
        signal: stop.signal,
        timeoutMs,
        era: target.era,
      });
      const request = connection.request;
      const args = (call.input ?? {}) as JsonObject;
      const result = resultObject(
        await request(
          "tools/call",
          {
            name: target.tool,
            arguments: args,
            // 2026-07-28: log messages only for requests that ask for them (2025 servers send them anyway).
            ...(target.era.kind === "modern" ? { _meta: { "io.modelcontextprotocol/logLevel": LOG_LEVEL } } : {}),
          },
          {
            signal: stop.signal,
            timeoutMs,
            // The approved definition, not whatever the upstream lists now, decides which
            // arguments are mirrored into headers (SEP-2243).
            headers: target.era.kind === "modern" ? paramHeaders(target.input_schema, args) : {},
            onProgress: (p) => emit("progress", progressData(p)),
            onNotification: (n) => {
              if (n.method !== "notifications/message") return;
              const p = n.params ?? {};
              emit("log", {
                level: String(p.level ?? "info"),
                ...(typeof p.logger === "string" ? { logger: p.logger } : {}),
                data: (p.data ?? null) as Value,
              });
            },
          },
        ),
        "tools/call",
      ) as CallToolResult;
      if (result.content !== undefined && !Array.isArray(result.content))
        throw new WireError("INVALID_RESULT", "the upstream's tools/call result has no content list");
      life();
      return toInvokeResult(result, target, latencyUs(started));
    } catch (err) {
      if (stop.signal.aborted) {
        if (target.era.kind === "legacy" && connection) await cancellationSent(connection.flags);
        const reason = (stop.signal.reason as StopSignal["reason"] | undefined) ?? "cancelled";
        return {
          ok: false,
          error: {
            code: "cancelled",
            message:
              reason === "timeout"
                ? "the upstream call was stopped at the end of its budget"
                : "the upstream call was cancelled",
          },
          latency_us: latencyUs(started),
        };
      }
      if (err instanceof UpstreamFailure || err instanceof UpstreamRefusal) throw err;
      const classified = classifyUpstreamError(err, {
        credential: auth.credential,
        tooLarge: connection?.flags.tooLarge ?? false,
      });
      if (classified.kind === "answer") return { ok: false, error: classified.result, latency_us: latencyUs(started) };
      // The caller's own failure: stage 7 fails the call with its code; health hears nothing.
      if (classified.kind === "refused") throw new UpstreamRefusal(classified.refusal);
      // The upstream's own words stay in the log, bounded; the caller gets the kind of failure.
      console.warn(
        JSON.stringify({
          msg: "upstream call failed",
          upstream: target.upstream,
          tool: target.tool,
          code: classified.failure.code,
          error: String(err).slice(0, 500),
        }),
      );
      throw new UpstreamFailure(classified.failure);
    } finally {
      await connection?.close();
    }
  }
}

/** The longest a cancel waits for its `notifications/cancelled` to reach a 2025-era server. */
const CANCEL_DELIVERY_MS = 1_000;

/**
 * Toward a 2025-era server the client answers an abort by POSTing `notifications/cancelled`;
 * closing the connection would abort that POST. So: wait (bounded) for it to start, then for
 * it to finish.
 */
async function cancellationSent(flags: Connection["flags"]): Promise<void> {
  const deadline = Date.now() + CANCEL_DELIVERY_MS;
  while (flags.cancellations.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  if (flags.cancellations.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(flags.cancellations),
    new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now())))),
  ]);
  if (timer !== undefined) clearTimeout(timer);
}

/** The stop notice without a sign of life where the sink offers it (src/execution/sink.ts). */
function watchStop(sink: ExecutionSink): Promise<StopSignal | AttemptSettled> {
  const notice = (sink as { stopNotice?: () => Promise<StopSignal> }).stopNotice;
  return typeof notice === "function" ? notice.call(sink) : sink.stopped();
}

function progressData(p: { progress: number; total?: number; message?: string }): Value {
  return {
    progress: p.progress,
    ...(typeof p.total === "number"
      ? { total: p.total, percent: p.total > 0 ? Math.min(100, Math.round((p.progress / p.total) * 100)) : 0 }
      : {}),
    ...(typeof p.message === "string" ? { message: p.message.slice(0, 1_000) } : {}),
  };
}

/** MCP's answer as a provider's: `isError` is the tool's own failure, with its text. */
export function toInvokeResult(
  result: CallToolResult,
  target: Pick<UpstreamTarget, "structured">,
  latency_us: number,
): InvokeResult {
  const content = Array.isArray(result.content) ? (result.content as Value[]) : [];
  if (result.isError === true) {
    const text = textOf(content);
    return {
      ok: false,
      error: {
        code: "tool_error",
        message: text || "the upstream tool reported an error",
        ...(result.structuredContent !== undefined
          ? { details: { structured_content: result.structuredContent as Value } }
          : {}),
      },
      latency_us,
    };
  }
  const output = target.structured ? ((result.structuredContent ?? null) as Value) : { content };
  return { ok: true, output, latency_us };
}

function textOf(content: Value[]): string {
  return content
    .filter(
      (c): c is { type: string; text: string } =>
        typeof c === "object" &&
        c !== null &&
        (c as { type?: unknown }).type === "text" &&
        typeof (c as { text?: unknown }).text === "string",
    )
    .map((c) => c.text)
    .join("\n");
}

function latencyUs(started: number): number {
  return (Date.now() - started) * 1000;
}
