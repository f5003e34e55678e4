/**
 * Tasks on the MCP face. A task IS an async execution: its id is the execution id
 * (`exec_<64 hex>`, an ExecutionObject's; unguessable), stored before the `tools/call` that
 * created it answers, and read, followed and cancelled through the execution service from any
 * isolate, for its own tenant only (another tenant's id answers exactly like an unknown one).
 *
 *   2026-07-28  extension `io.modelcontextprotocol/tasks` (SEP-2663): CreateTaskResult,
 *               `tasks/get` (DetailedTask, result inlined), `tasks/update`, `tasks/cancel`
 *               (empty ack); the client declares the extension on every task request (-32021 if not)
 *   2025-11-25  core tasks: `{task}` from `tools/call` with `params.task`, `tasks/get`,
 *               `tasks/result` (waits for the end), `tasks/list`, `tasks/cancel` (the task)
 */
import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  type ServerContext,
  type StandardSchemaV1,
} from "@modelcontextprotocol/server";
import type { ExecutionStatus, ExecutionView } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { cancel, events, get, list } from "../execution/service.ts";
import { parseFilters } from "../audit/queries.ts";
import { refusalError } from "./errors.ts";
import { callToolResult } from "./results.ts";
import { callContext, type McpScope } from "./scope.ts";
import { taskStatusOf, type TaskStatus } from "./task-status.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
const RELATED_TASK = "io.modelcontextprotocol/related-task";
const POLL_INTERVAL_MS = 1_000;
const TASK_ID = /^exec_[0-9a-f]{64}$/;

const isTerminalTask = (s: TaskStatus) => s === "completed" || s === "failed" || s === "cancelled";

/** The extension is declared per request, in the envelope's client capabilities (SEP-2575). */
export function declaresTasks(ctx: ServerContext): boolean {
  const caps = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[
    "io.modelcontextprotocol/clientCapabilities"
  ] as { extensions?: Record<string, unknown> } | undefined;
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
}

function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx))
    throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}

/** The answer of a `tools/call` that became a task: a flat CreateTaskResult (2026) or `{task}` (2025). */
export function createdTask(
  scope: McpScope,
  era: "modern" | "legacy",
  taskId: string,
  status: ExecutionStatus,
): Record<string, unknown> {
  const at = new Date(scope.acceptedAt).toISOString();
  const task = taskFields(scope, era, taskId, taskStatusOf(status, era), at, at);
  // The SDK checks a 2025 tools/call answer as a CallToolResult, which must carry `content`.
  return era === "modern" ? { resultType: "task", ...task } : { task, content: [] };
}

function taskFields(
  scope: McpScope,
  era: "modern" | "legacy",
  taskId: string,
  status: TaskStatus,
  createdAt: string,
  lastUpdatedAt: string,
  statusMessage?: string,
) {
  // Kept at least this long after creation: the retention window counts from the end (docs/contract.md#retention).
  const ttl = loadConfig(scope.env).retentionMs;
  return {
    taskId,
    status,
    ...(statusMessage ? { statusMessage } : {}),
    createdAt,
    lastUpdatedAt,
    ...(era === "modern" ? { ttlMs: ttl, pollIntervalMs: POLL_INTERVAL_MS } : { ttl, pollInterval: POLL_INTERVAL_MS }),
  };
}

/** The execution behind a task id, or -32602 (unknown, malformed, expired, another tenant's). */
async function viewOf(scope: McpScope, taskId: string): Promise<ExecutionView> {
  if (!TASK_ID.test(taskId))
    throw refusalError(new RuntimeError("execution_not_found", `no task ${taskId}`, { task_id: taskId }).toBody());
  const view = await get(callContext(scope), taskId);
  if (!view.ok) throw refusalError(view.error);
  return view.value;
}

/**
 * When the task was created and last changed. The view carries durations, not instants; the
 * execution's first stream event (`start`, stamped when it began running) anchors them:
 * created = start − started_ms, last change = start (working) or start + duration_ms (ended).
 */
async function timesOf(
  scope: McpScope,
  taskId: string,
  view: ExecutionView,
): Promise<{ createdAt: string; lastUpdatedAt: string }> {
  let first: { type: string; at: number } | undefined;
  const stream = await events(callContext(scope), taskId, 0);
  if (stream.ok && stream.value.kind === "stream") {
    for await (const event of stream.value.events) {
      first = event;
      break; // leaving the loop cancels the subscription
    }
  }
  const at = first?.at ?? Date.now();
  const x = view.execution;
  const created = first?.type === "start" ? at - (x.started_ms ?? 0) : at - (x.queued_ms ?? 0);
  const ended = first?.type === "start" && x.duration_ms !== null ? at + x.duration_ms : at;
  return {
    createdAt: new Date(created).toISOString(),
    lastUpdatedAt: new Date(taskStatusOf(view.status, "modern") === "working" ? at : ended).toISOString(),
  };
}

async function detailed(
  scope: McpScope,
  era: "modern" | "legacy",
  taskId: string,
  view: ExecutionView,
): Promise<Record<string, unknown>> {
  const status = taskStatusOf(view.status, era, view.error?.code);
  const { createdAt, lastUpdatedAt } = await timesOf(scope, taskId, view);
  const fields = taskFields(scope, era, taskId, status, createdAt, lastUpdatedAt, view.error?.message);
  if (era === "legacy") return fields;
  // The extension inlines the end in a finished task (there is no tasks/result): the tool's
  // result once completed; once failed, the JSON-RPC error a refusal of the same code would be.
  if (status === "completed") return { ...fields, result: callToolResult(view) };
  if (status === "failed" && view.error) {
    const { code, message, data } = refusalError(view.error);
    return { ...fields, error: { code, message, data } };
  }
  return fields;
}

/** The whole DetailedTask of one execution, for `notifications/tasks` (listen.ts). */
export async function detailedTask(scope: McpScope, taskId: string): Promise<Record<string, unknown>> {
  return detailed(scope, "modern", taskId, await viewOf(scope, taskId));
}

/** Waits for a task's end (bounded by the client: its abort ends the wait). */
async function untilEnded(scope: McpScope, taskId: string, signal: AbortSignal): Promise<ExecutionView> {
  const stream = await events(callContext(scope), taskId, 0);
  if (stream.ok && stream.value.kind === "stream") {
    const iterator = stream.value.events[Symbol.asyncIterator]();
    const aborted = new Promise<never>((_, reject) =>
      signal.addEventListener("abort", () => reject(new Error("request aborted")), { once: true }),
    );
    aborted.catch(() => {});
    try {
      for (;;) {
        const next = await Promise.race([iterator.next(), aborted]);
        if (next.done || next.value.type === "done" || next.value.type === "error") break;
      }
    } finally {
      // Not awaited: a generator's return waits for its pending read (see listen.ts).
      void iterator.return?.();
    }
  }
  return viewOf(scope, taskId);
}

/** A tiny Standard Schema for `{taskId}` params (the SDK requires one for task methods; no validator is compiled). */
const taskIdParams: StandardSchemaV1<unknown, { taskId: string }> = {
  "~standard": {
    version: 1,
    vendor: "tool-runtime",
    validate: (v) =>
      v !== null && typeof v === "object" && typeof (v as { taskId?: unknown }).taskId === "string"
        ? { value: v as { taskId: string } }
        : { issues: [{ message: "taskId must be a string", path: ["taskId"] }] },
  },
};

const listParams: StandardSchemaV1<unknown, { cursor?: string }> = {
  "~standard": {
    version: 1,
    vendor: "tool-runtime",
    validate: (v) => {
      const cursor = v !== null && typeof v === "object" ? (v as { cursor?: unknown }).cursor : undefined;
      return cursor === undefined || typeof cursor === "string"
        ? { value: { cursor: cursor as string | undefined } }
        : { issues: [{ message: "cursor must be a string", path: ["cursor"] }] };
    },
  },
};

interface TaskServer {
  setRequestHandler<P extends StandardSchemaV1>(
    method: string,
    schemas: { params: P },
    handler: (params: StandardSchemaV1.InferOutput<P>, ctx: ServerContext) => unknown,
  ): void;
}

/** The 2026-07-28 extension's methods. */
export function registerModernTasks(server: TaskServer, scope: McpScope): void {
  server.setRequestHandler("tasks/get", { params: taskIdParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    return detailed(scope, "modern", taskId, await viewOf(scope, taskId));
  });
  // Nothing waits for input yet (approvals will); a known task's update is acknowledged.
  server.setRequestHandler("tasks/update", { params: taskIdParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    await viewOf(scope, taskId);
    return {};
  });
  server.setRequestHandler("tasks/cancel", { params: taskIdParams }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    await cancelTask(scope, taskId);
    return {};
  });
}

/** The 2025-11-25 methods, over the same executions. */
export function registerLegacyTasks(server: TaskServer, scope: McpScope): void {
  server.setRequestHandler("tasks/get", { params: taskIdParams }, async ({ taskId }) =>
    detailed(scope, "legacy", taskId, await viewOf(scope, taskId)),
  );
  server.setRequestHandler("tasks/result", { params: taskIdParams }, async ({ taskId }, ctx) => {
    const view = await untilEnded(scope, taskId, ctx.mcpReq.signal);
    const result = callToolResult(view);
    return { ...result, _meta: { ...result._meta, [RELATED_TASK]: { taskId } } };
  });
  server.setRequestHandler("tasks/cancel", { params: taskIdParams }, async ({ taskId }) => {
    const before = await viewOf(scope, taskId);
    // 2025-11-25: cancelling a task in a terminal status is -32602.
    if (isTerminalTask(taskStatusOf(before.status, "legacy")))
      throw new ProtocolError(-32602, `task ${taskId} has already ended (${taskStatusOf(before.status, "legacy")})`);
    return detailed(scope, "legacy", taskId, await cancelTask(scope, taskId));
  });
  server.setRequestHandler("tasks/list", { params: listParams }, async ({ cursor }) => {
    let filters;
    try {
      filters = { ...parseFilters((name) => (name === "cursor" ? cursor : undefined)), limit: 50 };
    } catch (err) {
      throw err instanceof RuntimeError ? refusalError(err.toBody()) : err;
    }
    const page = await list(callContext(scope), filters);
    if (!page.ok) throw refusalError(page.error);
    // Tasks are the object executions (async, streamed, keyed); fast-path calls never were one.
    const tasks = page.value.executions
      .filter((e) => TASK_ID.test(e.execution_id))
      .map((e) => {
        const status = taskStatusOf(e.status as ExecutionStatus, "legacy");
        const created = e.accepted_at ?? new Date().toISOString();
        return taskFields(
          scope,
          "legacy",
          e.execution_id,
          status,
          created,
          e.ended_at ?? created,
          e.error_code ?? undefined,
        );
      });
    return { tasks, ...(page.value.next_cursor ? { nextCursor: page.value.next_cursor } : {}) };
  });
}

/** docs/contract.md#cancellation with the default grace period; answers when the execution has ended. */
async function cancelTask(scope: McpScope, taskId: string): Promise<ExecutionView> {
  await viewOf(scope, taskId);
  const view = await cancel(callContext(scope), taskId, undefined);
  if (!view.ok) throw refusalError(view.error);
  return view.value;
}
