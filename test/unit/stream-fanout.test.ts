import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExecutionEvent } from "../../src/contract.ts";
import { Fanout, MAX_SUBSCRIBERS } from "../../src/stream/fanout.ts";
import { encodeEventLine, EventStream } from "../../src/stream/ndjson.ts";
import { HEARTBEAT_MS, sseStream } from "../../src/stream/sse.ts";

const ev = (seq: number, type = "stdout", data: unknown = seq): ExecutionEvent => ({ seq, type, data: data as ExecutionEvent["data"], at: 0 });

async function* pages(...list: ExecutionEvent[][]): AsyncGenerator<ExecutionEvent[]> {
  for (const page of list) yield page;
}

/** Every event the stream carries until it closes. */
async function seqs(stream: ReadableStream<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const e of new EventStream(stream)) out.push(e.seq);
  return out;
}

afterEach(() => vi.useRealTimers());

describe("Fanout (an execution's subscribers)", () => {
  it("sends the backlog and then live events to a subscriber, in order, and closes after the terminal event", async () => {
    const fanout = new Fanout(encodeEventLine);
    const stream = fanout.subscribe(pages([ev(1, "start"), ev(2)]), 2, false)!;
    await new Promise((r) => setTimeout(r, 0));
    fanout.publish(ev(3));
    fanout.publish(ev(4, "done"));
    expect(await seqs(stream)).toEqual([1, 2, 3, 4]);
    expect(fanout.size).toBe(0);
  });

  it("holds events published while the backlog is still being read, and sends each exactly once after it", async () => {
    const fanout = new Fanout(encodeEventLine);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow(): AsyncGenerator<ExecutionEvent[]> {
      yield [ev(1, "start"), ev(2)];
      await gate; // the backlog's second page is read later
      yield [ev(3)];
    }
    const stream = fanout.subscribe(slow(), 3, false)!;
    fanout.publish(ev(3)); // already in the backlog: not sent twice
    fanout.publish(ev(4));
    fanout.publish(ev(5, "done"));
    release();
    expect(await seqs(stream)).toEqual([1, 2, 3, 4, 5]);
  });

  it("sends a subscriber resuming past the log's end only events newer than its Last-Event-ID", async () => {
    // Events 1-4 exist; the reader says it has 7 (README: "Lost the connection after event 7?").
    const fanout = new Fanout(encodeEventLine);
    const stream = fanout.subscribe(pages(), 4, false, 7)!;
    await new Promise((r) => setTimeout(r, 0));
    for (const seq of [5, 6, 7, 8]) fanout.publish(ev(seq));
    fanout.publish(ev(9, "done"));
    expect(await seqs(stream)).toEqual([8, 9]);
  });

  it("closes a subscriber that already had the terminal event's number when the execution ends", async () => {
    const fanout = new Fanout(encodeEventLine);
    const stream = fanout.subscribe(pages(), 2, false, 50)!;
    await new Promise((r) => setTimeout(r, 0));
    fanout.publish(ev(3));
    fanout.publish(ev(4, "error"));
    expect(await seqs(stream)).toEqual([]);
    expect(fanout.size).toBe(0);
  });

  it("closes at once a subscriber whose backlog already ends the execution", async () => {
    const fanout = new Fanout(encodeEventLine);
    const stream = fanout.subscribe(pages([ev(1, "start"), ev(2, "error")]), 2, true)!;
    expect(await seqs(stream)).toEqual([1, 2]);
    expect(fanout.size).toBe(0);
  });

  it("gives every subscriber the same events", async () => {
    const fanout = new Fanout(encodeEventLine);
    const streams = Array.from({ length: 5 }, () => fanout.subscribe(pages([ev(1, "start")]), 1, false)!);
    await new Promise((r) => setTimeout(r, 0));
    for (let seq = 2; seq <= 6; seq++) fanout.publish(ev(seq));
    fanout.publish(ev(7, "done"));
    for (const s of streams) expect(await seqs(s)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("drops a reader that falls too far behind, and refuses subscribers past the cap", async () => {
    const fanout = new Fanout(encodeEventLine);
    fanout.subscribe(pages(), 0, false); // never read
    await new Promise((r) => setTimeout(r, 0));
    const big = "x".repeat(60 * 1024);
    for (let seq = 1; seq <= 100; seq++) fanout.publish(ev(seq, "stdout", big));
    await new Promise((r) => setTimeout(r, 0));
    expect(fanout.size).toBe(0);
    const capped = new Fanout(encodeEventLine);
    for (let i = 0; i < MAX_SUBSCRIBERS; i++) expect(capped.subscribe(pages(), 0, false)).toBeInstanceOf(ReadableStream);
    expect(capped.subscribe(pages(), 0, false)).toBeUndefined();
  });

  it("sends what a slow reader has not taken yet as one chunk, in order", async () => {
    const fanout = new Fanout(encodeEventLine);
    const stream = fanout.subscribe(pages([ev(1, "start")]), 1, false)!;
    await new Promise((r) => setTimeout(r, 0));
    for (let seq = 2; seq <= 30; seq++) fanout.publish(ev(seq));
    fanout.publish(ev(31, "done"));
    const chunks: number[][] = [];
    for await (const batch of new EventStream(stream).batches()) chunks.push(batch.map((e) => e.seq));
    expect(chunks.flat()).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(chunks.length).toBeLessThan(10); // not one chunk per event
  });

  it("drops a subscriber whose reader went away, and keeps serving the others", async () => {
    const fanout = new Fanout(encodeEventLine);
    const gone = fanout.subscribe(pages(), 0, false)!;
    const stays = fanout.subscribe(pages(), 0, false)!;
    await new Promise((r) => setTimeout(r, 0));
    await gone.cancel();
    fanout.publish(ev(1));
    await new Promise((r) => setTimeout(r, 0));
    expect(fanout.size).toBe(1);
    fanout.publish(ev(2, "done"));
    expect(await seqs(stays)).toEqual([1, 2]);
  });
});

describe("sseStream (the REST face's framing)", () => {
  it("starts with retry, frames each event with its id, and sends a heartbeat comment every HEARTBEAT_MS while idle", async () => {
    vi.useFakeTimers();
    let next!: (e: ExecutionEvent) => void;
    async function* events(): AsyncGenerator<ExecutionEvent> {
      yield await new Promise<ExecutionEvent>((r) => (next = r));
    }
    const reader = sseStream(events()).getReader();
    const read = (async () => {
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return text;
        text += new TextDecoder().decode(value);
      }
    })();
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS * 2);
    next(ev(1, "done"));
    vi.useRealTimers();
    const text = await read;
    expect(text.startsWith("retry: ")).toBe(true);
    expect(text.match(/^: heartbeat$/gm)).toHaveLength(2);
    expect(text).toContain("id: 1\nevent: done\n");
    expect(HEARTBEAT_MS).toBeLessThanOrEqual(15_000);
  });
});
