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

/** The events of an NDJSON byte stream, in order; ends when the stream does. */
export async function* decodeEventLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<ExecutionEvent> {
  const decoder = new TextDecoder();
  const reader = stream.getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 1);
        if (line !== "") yield fromJson<ExecutionEvent>(line);
      }
    }
  } finally {
    reader.releaseLock();
    await stream.cancel().catch(() => {});
  }
}
