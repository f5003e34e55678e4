/**
 * An execution's events as an async generator that survives dropped connections: it
 * resumes after the last event it delivered (`Last-Event-ID`, TRT-002 §7), never hands an
 * event over twice, and ends after the terminal event.
 */
import { localError, ToolRuntimeError } from "./errors.ts";
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

export interface StreamOptions {
  /** Resume after this sequence number (0: from the start). */
  after?: number;
  /** Stops the stream (the generator then ends quietly). */
  signal?: AbortSignal;
  /** Told each time the connection drops, before the client reconnects. */
  onDrop?: (info: { reconnect: number; after: number; error: unknown }) => void;
  /** Consecutive failed reconnects before giving up with `network_error` (default 5). */
  maxReconnects?: number;
}

/** Follows `first` (an open SSE response, if any), then reconnects to the stream endpoint. */
export async function* followEvents(t: Transport, executionId: string, o: StreamOptions, first?: Response): AsyncGenerator<StreamEvent> {
  let last = o.after ?? 0;
  let failures = 0;
  const max = o.maxReconnects ?? 5;
  let res = first;
  for (;;) {
    let dropped: unknown = null;
    try {
      res ??= await t.request("GET", `/v1/executions/${encodeURIComponent(executionId)}/stream`, {
        headers: { accept: "text/event-stream", "last-event-id": String(last) },
        signal: o.signal,
      });
      if (res.status === 204) return; // resumed past the terminal event: nothing more will come
      if (!res.ok || !res.body) await t.json(res); // throws the error envelope
      for await (const message of readSse(res.body!)) {
        let event: StreamEvent;
        try {
          event = JSON.parse(message.data);
        } catch {
          throw localError("bad_response", `the event stream sent data that is not JSON: ${message.data.slice(0, 80)}`);
        }
        if (event.seq <= last) continue;
        last = event.seq;
        failures = 0;
        yield event;
        if (describeEvent(event.type).terminal) return;
      }
      dropped = new Error("the stream closed before its terminal event");
    } catch (err) {
      if (o.signal?.aborted) return;
      // The runtime refused (not found, credentials, busy): that is an answer, not a drop.
      if (err instanceof ToolRuntimeError && !err.local) throw err;
      if (err instanceof ToolRuntimeError && err.code === "bad_response") throw err;
      dropped = err;
    } finally {
      res?.body?.cancel().catch(() => {});
    }
    res = undefined;
    if (++failures > max) throw localError("network_error", `the event stream dropped ${failures} times in a row; the execution itself goes on (resume with its id after event ${last})`, { after: last });
    o.onDrop?.({ reconnect: failures, after: last, error: dropped });
    await pause(Math.min(2_000, 100 * 2 ** failures), o.signal);
    if (o.signal?.aborted) return;
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}
