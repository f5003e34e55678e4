/**
 * An execution's events as an async generator that survives dropped connections: it
 * resumes after the last event it delivered (`Last-Event-ID`), never hands an event over
 * twice, and ends after the terminal event.
 */
import { openScope, pause, type CallOptions, type CallScope } from "./call-options.ts";
import { ClientTimeoutError, localError, ToolRuntimeError } from "./errors.ts";
import type { Transport } from "./http.ts";
import { readSse } from "./sse.ts";
import { describeEvent } from "./statuses.ts";

export interface StreamEvent {
  seq: number;
  /** start | stdout | stderr | progress | partial | log | done | error, or a newer type. */
  type: string;
  at: string;
  data: any;
}

export interface StreamOptions extends CallOptions {
  /** Resume after this sequence number (0: from the start). */
  after?: number;
  /** Stops the stream (the generator then ends quietly); `timeoutMs` instead throws ClientTimeoutError. */
  signal?: AbortSignal;
  /** Told each time the connection drops, before the client reconnects. */
  onDrop?: (info: { reconnect: number; after: number; error: unknown }) => void;
  /** Consecutive failed reconnects before giving up with `network_error` (default 5). */
  maxReconnects?: number;
}

/**
 * Follows `first` (an open SSE response, if any), then reconnects to the stream endpoint.
 * `scope` is the call's when the stream belongs to a call already under way (invokeStream);
 * the generator closes it when it ends.
 */
export async function* followEvents(
  t: Transport,
  executionId: string,
  o: StreamOptions,
  first?: Response,
  given?: CallScope,
): AsyncGenerator<StreamEvent> {
  const scope = given ?? openScope(o);
  let last = o.after ?? 0;
  let failures = 0;
  const max = o.maxReconnects ?? 5;
  let res: Response | null | undefined = first;
  // The caller's own abort ends the stream quietly; only the deadline is an error.
  const stopped = () => {
    if (!scope.signal.aborted) return false;
    if (scope.signal.reason instanceof ClientTimeoutError) throw scope.signal.reason;
    return true;
  };
  try {
    for (;;) {
      let dropped: unknown = null;
      try {
        res ??= await t.send(
          "GET",
          `/v1/executions/${encodeURIComponent(executionId)}/stream`,
          { headers: { accept: "text/event-stream", "last-event-id": String(last) } },
          {
            scope,
            options: o,
            idempotent: true,
            read: async (r) => {
              if (r.status === 204) return null; // resumed past the terminal event: nothing more will come
              if (!r.ok || !r.body) await t.json(r, scope.signal); // throws the error envelope
              return r;
            },
          },
        );
        if (res === null) return;
        for await (const message of readSse(res.body!)) {
          let event: StreamEvent;
          try {
            event = JSON.parse(message.data);
          } catch {
            throw localError(
              "bad_response",
              `the event stream sent data that is not JSON: ${message.data.slice(0, 80)}`,
            );
          }
          if (event.seq <= last) continue;
          last = event.seq;
          failures = 0;
          yield event;
          if (describeEvent(event.type).terminal || stopped()) return; // no event after an abort, even one already read
        }
        dropped = new Error("the stream closed before its terminal event");
      } catch (err) {
        if (stopped()) return;
        // The runtime refused (not found, credentials, busy): that is an answer, not a drop.
        if (err instanceof ToolRuntimeError && !err.local) throw err;
        if (err instanceof ToolRuntimeError && err.code === "bad_response") throw err;
        dropped = err;
      } finally {
        res?.body?.cancel().catch(() => {});
      }
      res = undefined;
      if (++failures > max)
        throw localError(
          "network_error",
          `the event stream dropped ${failures} times in a row; the execution itself goes on (resume with its id after event ${last})`,
          { after: last },
        );
      o.onDrop?.({ reconnect: failures, after: last, error: dropped });
      try {
        await pause(Math.min(2_000, 100 * 2 ** failures), scope.signal);
      } catch {
        if (stopped()) return;
      }
    }
  } finally {
    scope.close();
  }
}
