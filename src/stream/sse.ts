/**
 * Server-Sent Events framing for execution events (docs/contract.md#streaming): the REST face's
 * way of writing the event objects the execution service streams.
 */
import type { ExecutionEvent } from "../contract.ts";
import { toJson } from "../codec/bytes.ts";

/** How long a client should wait before reconnecting, sent once at the start of each stream. */
export const RETRY_MS = 2_000;
/** A comment line at least this often keeps proxies from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** One event: its sequence number is the SSE id, so `Last-Event-ID` resumes after it. */
export function frameEvent(event: ExecutionEvent): string {
  const payload = toJson({ seq: event.seq, type: event.type, at: new Date(event.at).toISOString(), data: event.data });
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${payload}\n\n`;
}

export function frameRetry(ms = RETRY_MS): string {
  return `retry: ${ms}\n\n`;
}

export function frameHeartbeat(): string {
  return ": heartbeat\n\n";
}

const encoder = new TextEncoder();

/**
 * An SSE byte stream of `events`: `retry` first, a heartbeat while idle, closed after the last
 * event. Events that arrive together (an EventStream's batches) are written together.
 */
export function sseStream(
  events: AsyncIterable<ExecutionEvent> | { batches(): AsyncIterable<ExecutionEvent[]> },
  heartbeatMs = HEARTBEAT_MS,
): ReadableStream<Uint8Array> {
  const iterator = ("batches" in events ? events.batches() : batchesOf(events))[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | null = null;
  const stop = () => {
    if (heartbeat !== null) clearInterval(heartbeat);
    heartbeat = null;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(frameRetry()));
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(frameHeartbeat()));
        } catch {
          stop();
        }
      }, heartbeatMs);
    },
    async pull(controller) {
      try {
        const next = await iterator.next();
        if (next.done) {
          stop();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next.value.map(frameEvent).join("")));
      } catch (err) {
        stop();
        controller.error(err);
      }
    },
    async cancel() {
      // The client went away: stop reading (a shared stream drops this subscriber).
      stop();
      await iterator.return?.();
    },
  });
}

async function* batchesOf(events: AsyncIterable<ExecutionEvent>): AsyncGenerator<ExecutionEvent[]> {
  for await (const event of events) yield [event];
}

/**
 * The sequence number to resume after: `Last-Event-ID` (what EventSource sends on reconnect)
 * wins over `?after=`; neither means from the start. Returns null when malformed.
 */
export function resumeAfter(
  lastEventId: string | null | undefined,
  afterParam: string | null | undefined,
): number | null {
  const raw = lastEventId ?? afterParam;
  if (raw === null || raw === undefined || raw === "") return 0;
  if (!/^\d{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}
