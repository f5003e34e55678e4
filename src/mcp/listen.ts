/**
 * `subscriptions/listen` with `notifications.taskIds` (tasks extension, SEP-2663): an SSE
 * stream that pushes `notifications/tasks` (the whole DetailedTask) for the listed tasks. The
 * SDK's listen router knows list-changed and resource subscriptions only, so a listen that
 * names tasks is served here, before `createMcpHandler`; any other listen goes to the SDK.
 *
 * Stream: the acknowledgement first (the honored filter: the listed ids that are this tenant's
 * tasks), then each task as it is now, then each task again when it ends; when every listed
 * task has ended, the graceful-close result, and the stream closes. Each task is followed on
 * its execution's own event stream, so this works from any isolate. Every message carries the
 * subscription id (the listen request's id) in `_meta`.
 */
import { SUBSCRIPTION_ID_META_KEY, type RequestId } from "@modelcontextprotocol/server";
import { events } from "../execution/service.ts";
import { isTerminalEvent } from "../execution/events.ts";
import { callContext, type McpScope } from "./scope.ts";
import { SERVER_INFO } from "./server.ts";
import { detailedTask, TASKS_EXTENSION } from "./tasks.ts";

const MAX_TASKS = 32;
const KEEPALIVE_MS = 15_000;

interface ListenMessage {
  id: RequestId;
  params: { notifications: { taskIds: unknown[] }; _meta?: Record<string, unknown> };
}

/** A 2026-07-28 `subscriptions/listen` that names tasks (anything else is the SDK's). */
export function isTaskListen(body: unknown, headers: Headers): body is ListenMessage {
  const m = body as {
    method?: unknown;
    id?: unknown;
    params?: { notifications?: { taskIds?: unknown }; _meta?: Record<string, unknown> };
  };
  return (
    m !== null &&
    typeof m === "object" &&
    m.method === "subscriptions/listen" &&
    (typeof m.id === "string" || typeof m.id === "number") &&
    Array.isArray(m.params?.notifications?.taskIds) &&
    m.params?._meta?.["io.modelcontextprotocol/protocolVersion"] === "2026-07-28" &&
    headers.get("mcp-protocol-version") === "2026-07-28" &&
    headers.get("mcp-method") === "subscriptions/listen"
  );
}

export async function serveTaskListen(scope: McpScope, message: ListenMessage): Promise<Response> {
  const caps = message.params._meta?.["io.modelcontextprotocol/clientCapabilities"] as
    { extensions?: Record<string, unknown> } | undefined;
  if (caps?.extensions?.[TASKS_EXTENSION] === undefined) {
    // SEP-2663: asking for task notifications without declaring the extension.
    return Response.json(
      {
        jsonrpc: "2.0",
        id: message.id,
        error: {
          code: -32021,
          message: `Missing required client capabilities: extensions`,
          data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        },
      },
      { status: 400 },
    );
  }
  const ids = message.params.notifications.taskIds
    .filter((id): id is string => typeof id === "string")
    .slice(0, MAX_TASKS);
  // Only the caller's own tasks are honored; another tenant's id is treated exactly like a made-up one.
  const known = await Promise.all(
    ids.map((id) =>
      detailedTask(scope, id).then(
        (task) => ({ id, task }),
        () => undefined,
      ),
    ),
  );
  const honored = known.filter((k) => k !== undefined);
  const sub = message.id;
  const frame = (body: unknown) => encoder.encode(`event: message\ndata: ${JSON.stringify(body)}\n\n`);
  const notify = (method: string, params: Record<string, unknown>) =>
    frame({ jsonrpc: "2.0", method, params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: sub } } });

  const stop = new AbortController();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (bytes: Uint8Array) => {
        if (!stop.signal.aborted) controller.enqueue(bytes);
      };
      send(
        notify("notifications/subscriptions/acknowledged", { notifications: { taskIds: honored.map((k) => k.id) } }),
      );
      const keepalive = setInterval(() => send(encoder.encode(": keepalive\n\n")), KEEPALIVE_MS);
      try {
        await Promise.all(
          honored.map(async ({ id, task }) => {
            send(notify("notifications/tasks", task));
            if (task.status === "working" || task.status === "input_required") {
              await untilTerminal(scope, id, stop.signal);
              if (!stop.signal.aborted) send(notify("notifications/tasks", await detailedTask(scope, id)));
            }
          }),
        );
        send(
          frame({
            jsonrpc: "2.0",
            id: sub,
            result: {
              resultType: "complete",
              _meta: { [SUBSCRIPTION_ID_META_KEY]: sub, "io.modelcontextprotocol/serverInfo": SERVER_INFO },
            },
          }),
        );
      } catch (err) {
        console.warn(JSON.stringify({ msg: "mcp task listen failed", error: String(err) }));
      } finally {
        clearInterval(keepalive);
        if (!stop.signal.aborted) controller.close();
      }
    },
    cancel() {
      stop.abort();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache, no-transform" },
  });
}

const encoder = new TextEncoder();

async function untilTerminal(scope: McpScope, taskId: string, stop: AbortSignal): Promise<void> {
  const stream = await events(callContext(scope), taskId, 0);
  if (!stream.ok || stream.value.kind !== "stream") return;
  const iterator = stream.value.events[Symbol.asyncIterator]();
  const stopped = new Promise<{ done: true; value: undefined }>((resolve) =>
    stop.addEventListener("abort", () => resolve({ done: true, value: undefined }), { once: true }),
  );
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next.done || isTerminalEvent(next.value.type)) return;
    }
  } finally {
    // Not awaited: a generator's return waits for its pending read; the subscription then ends at
    // the execution's next event (or its end), which the execution's timeout bounds.
    void iterator.return?.(undefined);
  }
}
