/**
 * `tools/call` on the MCP face: one call of the execution service (all seven stages, limits,
 * admission, audit with face "mcp"), delivered the way the request can take it:
 *
 *   a task          the client takes tasks and the tool is slow or long-running (2026-07-28), or
 *                   the client asked with `params.task` (2025-11-25): mode async, answered with
 *                   the task once the execution is stored (tasks.ts)
 *   followed        a `progressToken`, a client that asked for log messages (log-level.ts), or a
 *                   slow or long-running tool: mode async + stream; its `progress` events become
 *                   `notifications/progress`, `stdout`/`stderr`/`log` events
 *                   `notifications/message` (from the level asked for); closing the response
 *                   stream cancels it
 *   plain           everything else: mode sync, the edge's fast path
 *
 * Runtime options ride in `_meta` under `io.tool-runtime/` (the names of docs/contract.md#request): `version`,
 * `provider`, `project`, `context`, `limits`, `idempotency_key`. `_meta.traceparent` continues the
 * caller's trace (scope.ts). The input is validated by the runtime (stage 4), never here.
 */
import {
  ProtocolError,
  type CallToolResult,
  type LoggingLevel,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { ErrorBody, ExecutionEvent } from "../contract.ts";
import { RuntimeError, statusOf } from "../errors.ts";
import { retryAfterHeaders } from "../retry-after.ts";
import { cancel, execute, get, type CallAnswer, type CallContext } from "../execution/service.ts";
import { isTerminalEvent } from "../execution/events.ts";
import { callableOffering, toolDetail } from "../execution/tool-listing.ts";
import { refusalError } from "./errors.ts";
import { toolInView } from "../registry/bundles.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { callToolResult, endingOfEvent, META_EXECUTION_ID, type Ending } from "./results.ts";
import { callContext, callTrace, type McpScope } from "./scope.ts";
import { atLeast, isLoggingLevel, requestLogLevel } from "./log-level.ts";
import { createdTask, declaresTasks } from "./tasks.ts";
import { taskUseOf, type TaskUse } from "./tools.ts";

/** The `_meta` keys a call may carry, and the field of docs/contract.md#request each one sets. */
export const META_OPTIONS = ["version", "provider", "project", "context", "limits", "idempotency_key"] as const;
const META_PREFIX = "io.tool-runtime/";

export interface CallParams {
  name: string;
  arguments?: Record<string, unknown>;
  task?: unknown;
  _meta?: Record<string, unknown>;
}

/**
 * A `tools/call` made ready to run, before anything ran: what the service is asked, and how the
 * tool runs as a task. Preparing refuses a tool outside the bundles in view and an unknown
 * `io.tool-runtime/` key of `_meta`; it reads, and changes nothing.
 */
export interface PreparedCall {
  context: CallContext;
  envelope: Record<string, unknown>;
  options: Partial<Record<(typeof META_OPTIONS)[number], unknown>>;
  /** How the tool runs when a client takes tasks; undefined when the caller cannot see it. */
  use: TaskUse | undefined;
}

/** `meta`: the request's `_meta` without the 2026-07-28 envelope's keys, as the SDK hands it to a handler. */
export async function prepareCall(
  scope: McpScope,
  params: CallParams,
  meta: Record<string, unknown> | undefined,
): Promise<PreparedCall> {
  if (scope.bundles && !toolInView(scope.bundles, await getSnapshot(scope.env, scope.waitUntil), params.name)) {
    // Outside the bundle: refused exactly as a tool that does not exist (src/pipeline/lookup.ts),
    // so a bundle reveals no more than it lists (docs/contract.md#bundles).
    throw refusalError(
      new RuntimeError("tool_not_found", `no tool named ${params.name}`, { tool: params.name }).toBody(),
    );
  }
  const options = runtimeOptions(meta);
  const context = callContext(scope, callTrace(scope, meta));
  // No `arguments` is no `input`: the runtime decides, as on REST (`{}` when the schema takes it).
  const envelope = {
    tool: params.name,
    ...(params.arguments !== undefined ? { input: params.arguments } : {}),
    ...options,
  };
  return { context, envelope, options, use: await taskUse(scope, params.name, options.version) };
}

export async function callTool(
  scope: McpScope,
  era: "modern" | "legacy",
  params: CallParams,
  ctx: ServerContext,
): Promise<CallToolResult | Record<string, unknown>> {
  const prepared = await prepareCall(scope, params, ctx.mcpReq._meta);
  const { context, envelope, options, use } = prepared;

  if (era === "legacy" && params.task !== undefined && use === "never") {
    // 2025-11-25 tools/call: a task for a tool whose taskSupport is "forbidden" is -32601.
    throw new ProtocolError(-32601, `tool ${params.name} does not run as a task (taskSupport "forbidden")`);
  }
  const asTask =
    era === "modern" ? use === "always" && declaresTasks(ctx) : params.task !== undefined && use !== undefined;
  if (asTask) {
    const answer = await run(scope, context, { ...envelope, mode: "async" });
    if (answer.kind === "finished") return createdTask(scope, era, answer.view.execution_id, answer.view.status);
    if (answer.kind !== "accepted") throw unexpected(answer);
    return createdTask(scope, era, answer.execution_id, answer.status);
  }

  const progressToken = ctx.mcpReq._meta?.progressToken as string | number | undefined;
  const logLevel = era === "modern" ? requestLogLevel(ctx.mcpReq.envelope as Record<string, unknown>) : scope.logLevel;
  if (progressToken !== undefined || logLevel !== undefined || use === "always") {
    // A 2025 client cancels with notifications/cancelled on another POST: the execution's id
    // must be findable from (session, request id), so such a call is keyed by them (handler.ts).
    const key =
      options.idempotency_key ??
      (era === "legacy" && scope.sessionId ? sessionCallKey(scope.sessionId, ctx.mcpReq.id) : undefined);
    const answer = await run(scope, context, {
      ...envelope,
      mode: "async",
      stream: true,
      ...(key !== undefined ? { idempotency_key: key } : {}),
    });
    if (answer.kind === "finished") return endResult(scope, answer.view);
    if (answer.kind !== "stream") throw unexpected(answer);
    return follow(scope, context, answer.execution_id, answer.events, ctx, {
      progressToken,
      logLevel,
      tool: params.name,
    });
  }
  return callPlain(scope, prepared);
}

/** A plain call (neither a task nor followed): mode sync, the edge's fast path; its end is the answer. */
export async function callPlain(scope: McpScope, prepared: PreparedCall): Promise<CallToolResult> {
  const answer = await run(scope, prepared.context, { ...prepared.envelope, mode: "sync" });
  if (answer.kind !== "finished") throw unexpected(answer);
  return endResult(scope, answer.view);
}

/** An execution's end as the result; one that asks to come back later (429/503) also says when over HTTP. */
function endResult(scope: McpScope, end: Ending): CallToolResult {
  noteRetryAfter(scope, end.error);
  return callToolResult(end);
}

/** Keeps a 429/503 error's `Retry-After` for the HTTP answer (handler.ts), as REST sends it. */
export function noteRetryAfter(scope: McpScope, error: ErrorBody | undefined): void {
  if (!error) return;
  const header = retryAfterHeaders(statusOf(error.code), { error })["Retry-After"];
  if (header) scope.retryAfter = header;
}

/**
 * The idempotency key of a followed call on the 2025 lane: unique per session and JSON-RPC id
 * (a client never reuses an id within a session), so a duplicate POST attaches to the same
 * execution and `notifications/cancelled` can find it.
 */
export function sessionCallKey(sessionId: string, requestId: string | number): string | undefined {
  const key = `mcp-session:${sessionId}:${JSON.stringify(requestId)}`;
  return key.length <= 255 && /^[\x21-\x7e]+$/.test(key) ? key : undefined;
}

/** The service's answer, or its refusal as the JSON-RPC error (a `forbidden` one also makes the HTTP answer 403). */
async function run(scope: McpScope, context: CallContext, envelope: Record<string, unknown>): Promise<CallAnswer> {
  const outcome = await execute(context, envelope);
  if (outcome.ok) return outcome.value;
  if (outcome.error.code === "forbidden") {
    const required = outcome.error.details?.level === 3 ? String(outcome.error.details.required) : undefined;
    scope.forbidden = { message: outcome.error.message, ...(required ? { required } : {}) };
  }
  noteRetryAfter(scope, outcome.error);
  throw refusalError(outcome.error);
}

/** Relays a followed execution's events until its end; the client closing the stream cancels it. */
async function follow(
  scope: McpScope,
  context: CallContext,
  executionId: string,
  events: AsyncIterable<ExecutionEvent>,
  ctx: ServerContext,
  o: { progressToken: string | number | undefined; logLevel: LoggingLevel | undefined; tool: string },
): Promise<CallToolResult> {
  const { progressToken, logLevel, tool } = o;
  let ended = false;
  // The signal also fires when the exchange is torn down after the answer: only a close before the end cancels.
  const onClose = () => {
    if (!ended) scope.waitUntil(cancel(context, executionId, undefined));
  };
  if (ctx.mcpReq.signal.aborted) onClose();
  else ctx.mcpReq.signal.addEventListener("abort", onClose, { once: true });
  let lastProgress = -Infinity;
  try {
    for await (const event of events) {
      if (isTerminalEvent(event.type)) {
        ended = true;
        return endResult(scope, endingOfEvent(executionId, event.type, event.data));
      }
      if (ctx.mcpReq.signal.aborted) continue; // nobody is listening; wait for the cancelled end
      if (event.type === "progress" && progressToken !== undefined) {
        const progress = progressOf(event);
        // MCP: progress increases with every notification.
        if (progress.progress > lastProgress) {
          lastProgress = progress.progress;
          // The execution's id rides along, so a client can read or cancel it before the end.
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken, ...progress, _meta: { [META_EXECUTION_ID]: executionId } },
          });
        }
      } else if (event.type === "stdout" || event.type === "stderr" || event.type === "log") {
        const level = levelOf(event);
        if (!logLevel || atLeast(level, logLevel)) await ctx.mcpReq.log(level, event.data, `${tool}/${event.type}`);
      }
    }
  } finally {
    ended = true;
    ctx.mcpReq.signal.removeEventListener("abort", onClose);
  }
  // The stream ended without its terminal event (the edge lost the object): read the record.
  const view = await get(context, executionId);
  if (view.ok && !["queued", "scheduled", "running"].includes(view.value.status)) return callToolResult(view.value);
  throw refusalError(
    new RuntimeError(
      "internal",
      "lost contact with the execution; it may still be running",
      { execution_id: executionId },
      false,
    ).toBody(),
  );
}

/** A `progress` event's data as MCP progress: `progress`/`total`/`message`, or a percentage. */
function progressOf(event: ExecutionEvent): { progress: number; total?: number; message?: string } {
  const d = (event.data !== null && typeof event.data === "object" ? event.data : {}) as Record<string, unknown>;
  const message = typeof d.message === "string" ? { message: d.message } : {};
  if (typeof d.progress === "number")
    return { progress: d.progress, ...(typeof d.total === "number" ? { total: d.total } : {}), ...message };
  if (typeof d.percent === "number") return { progress: d.percent, total: 100, ...message };
  return { progress: event.seq, ...message };
}

function levelOf(event: ExecutionEvent): LoggingLevel {
  if (event.type === "stderr") return "warning";
  const level =
    event.data !== null && typeof event.data === "object" ? (event.data as Record<string, unknown>).level : undefined;
  return isLoggingLevel(level) ? level : "info";
}

/** `io.tool-runtime/*` keys of `_meta` as envelope fields; an unknown one is a mistake worth saying (-32602). */
function runtimeOptions(
  meta: Record<string, unknown> | undefined,
): Partial<Record<(typeof META_OPTIONS)[number], unknown>> {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(meta ?? {})) {
    if (!key.startsWith(META_PREFIX)) continue;
    const field = key.slice(META_PREFIX.length);
    if (!(META_OPTIONS as readonly string[]).includes(field)) {
      throw refusalError(
        new RuntimeError(
          "invalid_request",
          `unknown _meta key ${JSON.stringify(key)}; known: ${META_OPTIONS.map((o) => META_PREFIX + o).join(", ")}`,
          { field: key },
        ).toBody(),
      );
    }
    options[field] = value;
  }
  return options;
}

/** How the tool (that version, or the active one) runs as a task; undefined when the caller cannot see it. */
async function taskUse(scope: McpScope, name: string, version: unknown): Promise<TaskUse | undefined> {
  if (typeof name !== "string") return undefined;
  const detail = await toolDetail(scope.env, scope.caller, name, scope.waitUntil);
  if (!detail.ok) return undefined;
  const offering = callableOffering(detail.value, scope.caller, typeof version === "string" ? version : undefined);
  return offering ? taskUseOf(offering.latency_class) : undefined;
}

function unexpected(answer: CallAnswer): Error {
  return new Error(`unexpected answer ${answer.kind} from the execution service`);
}
