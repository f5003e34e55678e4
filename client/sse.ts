/**
 * A small Server-Sent Events reader over a fetch Response body (WHATWG rules for `id`,
 * `event`, `data` and comments), so that the client needs no dependency and runs the same in
 * Node, browsers and Workers.
 */
export interface SseMessage {
  id?: string;
  event: string;
  data: string;
}

export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "message";
  let id: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(buffer[nl] === "\r" && buffer[nl + 1] === "\n" ? nl + 2 : nl + 1);
        if (line === "") {
          if (data.length > 0) yield { id, event, data: data.join("\n") };
          data = [];
          event = "message";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") data.push(val);
        else if (field === "event") event = val;
        else if (field === "id" && !val.includes("\0")) id = val;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
