/**
 * How an execution object hands its events to an edge: one JSON event per line over a byte
 * stream (Durable Object RPC carries byte streams). The edge decodes them back into event
 * objects, and each face frames them its own way (SSE, Connect messages, MCP notifications).
 */
import type { ExecutionEvent } from "../contract.ts";
import { fromJson, toJson } from "../codec/bytes.ts";

const encoder = new TextEncoder();

export function encodeEventLine(event: ExecutionEvent): Uint8Array {
  return encoder.encode(`${toJson(event)}\n`);
}

/**
 * An execution's events as they arrive: iterate it for one event at a time, or take
 * `batches()` — every event that arrived together — to frame them as one write (under load the
 * object sends several events per chunk, and a face that writes them together keeps up).
 */
export class EventStream implements AsyncIterable<ExecutionEvent> {
  readonly #stream: ReadableStream<Uint8Array>;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#stream = stream;
  }

  async *batches(): AsyncGenerator<ExecutionEvent[]> {
    const decoder = new TextDecoder();
    const reader = this.#stream.getReader();
    let buffer = "";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const cut = buffer.lastIndexOf("\n");
        if (cut < 0) continue;
        const lines = buffer.slice(0, cut).split("\n");
        buffer = buffer.slice(cut + 1);
        const events = lines.filter((l) => l !== "").map((l) => fromJson<ExecutionEvent>(l));
        if (events.length > 0) yield events;
      }
    } finally {
      reader.releaseLock();
      await this.#stream.cancel().catch(() => {});
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<ExecutionEvent> {
    for await (const batch of this.batches()) yield* batch;
  }
}
