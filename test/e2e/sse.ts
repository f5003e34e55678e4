/** SSE helpers for the e2e suite: EventSource (the `eventsource` package) for GET streams. */
import { EventSource } from "eventsource";
import { baseUrl, bearer, DEV_KEY } from "./http.ts";

export interface Received {
  id: number;
  type: string;
  payload: { seq: number; type: string; at?: string; data: any };
}

export const EVENT_TYPES = ["start", "stdout", "stderr", "progress", "partial", "log", "done", "error"];

/**
 * Follows /v1/executions/{id}/stream with a real EventSource until the terminal event,
 * letting it reconnect on its own. `fetchImpl` may stand between it and the network;
 * `onEvent` sees each event as it arrives.
 */
export function collect(
  executionId: string,
  options: {
    fetch?: typeof fetch;
    query?: string;
    timeoutMs?: number;
    key?: string;
    onEvent?: (e: Received) => void;
  } = {},
): Promise<Received[]> {
  return new Promise((resolve, reject) => {
    const received: Received[] = [];
    const underlying = options.fetch ?? fetch;
    // EventSource cannot set headers itself; its fetch can.
    const authed: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", bearer(options.key ?? DEV_KEY).authorization);
      return underlying(input, { ...init, headers });
    };
    const es = new EventSource(`${baseUrl}/v1/executions/${executionId}/stream${options.query ?? ""}`, {
      fetch: authed,
    });
    const timer = setTimeout(() => {
      es.close();
      reject(new Error(`no terminal event within the time; got ${received.map((r) => r.type).join(",")}`));
    }, options.timeoutMs ?? 20_000);
    for (const type of EVENT_TYPES) {
      es.addEventListener(type, (e: MessageEvent) => {
        // EventSource also fires a plain `error` (no data) when the connection drops and it
        // is about to reconnect; only a message with data is the execution's error event.
        if (typeof e.data !== "string") return;
        received.push({ id: Number(e.lastEventId), type, payload: JSON.parse(e.data) });
        options.onEvent?.(received.at(-1)!);
        if (type === "done" || type === "error") {
          clearTimeout(timer);
          es.close();
          resolve(received);
        }
      });
    }
  });
}

/** Reads an SSE response body (POST with stream: true, which EventSource cannot send) to its end. */
export async function readSse(res: Response): Promise<Received[]> {
  const text = await res.text();
  const out: Received[] = [];
  for (const block of text.split("\n\n")) {
    const fields = Object.fromEntries(
      block
        .split("\n")
        .filter((l) => l && !l.startsWith(":"))
        .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trimStart()]),
    );
    if (fields.event) out.push({ id: Number(fields.id), type: fields.event, payload: JSON.parse(fields.data) });
  }
  return out;
}

/** True when ids run 1, 2, 3… with no gap and no repeat. */
export function contiguousFromOne(events: Received[]): boolean {
  return events.every((e, i) => e.id === i + 1 && e.payload.seq === i + 1);
}

/**
 * Reads /v1/executions/{id}/stream until `enough` holds for the events so far, then lets the
 * stream go: a bounded wait for something the execution has visibly done (its first partial
 * output, say) while it runs.
 */
export async function eventsUntil(
  executionId: string,
  enough: (events: Received[]) => boolean,
  options: { key?: string; timeoutMs?: number } = {},
): Promise<Received[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 20_000);
  const res = await fetch(`${baseUrl}/v1/executions/${executionId}/stream`, {
    headers: bearer(options.key ?? DEV_KEY),
    signal: abort.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: Received[] = [];
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the stream ended first; got ${events.map((e) => e.type).join(",")}`);
      buffer += value;
      const blocks = buffer.split("\n\n");
      buffer = blocks.pop()!;
      for (const block of blocks) {
        const fields = Object.fromEntries(
          block
            .split("\n")
            .filter((l) => l && !l.startsWith(":"))
            .map((l) => [l.slice(0, l.indexOf(":")), l.slice(l.indexOf(":") + 1).trimStart()]),
        );
        if (fields.event) events.push({ id: Number(fields.id), type: fields.event, payload: JSON.parse(fields.data) });
      }
      if (enough(events)) return events;
    }
  } catch (err) {
    if (abort.signal.aborted) throw new Error(`not seen within the time; got ${events.map((e) => e.type).join(",")}`);
    throw err;
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}
