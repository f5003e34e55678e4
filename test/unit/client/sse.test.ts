/** The client's SSE reader (client/sse.ts) over bodies cut at awkward places. */
import { describe, expect, it } from "vitest";
import { readSse } from "../../../client/sse.ts";

function body(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(typeof c === "string" ? encoder.encode(c) : c);
      controller.close();
    },
  });
}

async function read(stream: ReadableStream<Uint8Array>) {
  const out = [];
  for await (const m of readSse(stream)) out.push(m);
  return out;
}

describe("the client's SSE reader", () => {
  it("keeps one event whole when its CRLF is split across two chunks", async () => {
    expect(await read(body("data: a\r", "\ndata: b\r\n\r\n"))).toEqual([{ event: "message", data: "a\nb" }]);
  });

  it("joins multi-line data with newlines, whatever the line endings", async () => {
    expect(await read(body("data: one\ndata: two\r\ndata: three\rdata:four\n\n"))).toEqual([
      { event: "message", data: "one\ntwo\nthree\nfour" },
    ]);
  });

  it("reads id, event name and skips comments and events without data", async () => {
    const events = await read(
      body(
        ": heartbeat\n\n",
        'id: 7\nevent: progress\ndata: {"seq":7}\n\n',
        "event: empty\n\n",
        "retry: 1000\n",
        "data: last\n\n",
      ),
    );
    expect(events).toEqual([
      { id: "7", event: "progress", data: '{"seq":7}' },
      { event: "message", data: "last" },
    ]);
  });

  it("keeps a character whose UTF-8 bytes are split across chunks", async () => {
    const bytes = new TextEncoder().encode("data: café ✓\n\n");
    const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of "é"
    expect(await read(body(bytes.slice(0, cut), bytes.slice(cut)))).toEqual([{ event: "message", data: "café ✓" }]);
  });

  it("delivers events split byte by byte as the same events", async () => {
    const text = 'id: 1\ndata: {"a":1}\r\n\r\nid: 2\r\ndata: x\r\ndata: y\r\n\r\n';
    const bytes = new TextEncoder().encode(text);
    const events = await read(body(...Array.from(bytes, (b) => new Uint8Array([b]))));
    expect(events).toEqual([
      { id: "1", event: "message", data: '{"a":1}' },
      { id: "2", event: "message", data: "x\ny" },
    ]);
  });

  it("drops an event the stream ended in the middle of", async () => {
    expect(await read(body("data: whole\n\n", "data: cut off"))).toEqual([{ event: "message", data: "whole" }]);
  });
});
