/**
 * Server-Sent Events over a fetch Response body, parsed by `eventsource-parser` (the WHATWG
 * rules for `id`, `event`, `data`, comments and every line ending, including a `\r\n` that
 * arrives split across two chunks). Web streams only, so it runs in Node, browsers and Workers.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (m) => void ready.push(m) });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.feed(decoder.decode(value, { stream: true }));
      const batch = ready;
      ready = [];
      for (const m of batch)
        yield { ...(m.id !== undefined ? { id: m.id } : {}), event: m.event ?? "message", data: m.data };
    }
  } finally {
    reader.releaseLock();
  }
}
