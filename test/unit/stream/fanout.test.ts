import { afterEach, describe, expect, it, vi } from "vitest";
import type { ExecutionEvent } from "../../../src/contract.ts";
import { Fanout, MAX_QUEUED_BYTES, MAX_SUBSCRIBERS } from "../../../src/stream/fanout.ts";
import { encodeEventLine, EventStream } from "../../../src/stream/ndjson.ts";
import { HEARTBEAT_MS, sseStream } from "../../../src/stream/sse.ts";

const ev = (seq: number, type = "stdout", data: unknown = seq): ExecutionEvent => ({
  seq,
  type,
  data: data as ExecutionEvent["data"],
  at: 0,
});

/** A Fanout over an in-memory event log: `publish` stores the event first, as the object does. */
function withLog(...backlog: ExecutionEvent[]) {
  const log = [...backlog];
  const fanout = new Fanout(encodeEventLine, (after, upTo, limit) =>
    log.filter((e) => e.seq > after && e.seq <= upTo).slice(0, limit),
  );
  const publish = (e: ExecutionEvent) => {
    log.push(e);
    fanout.publish(e);
  };
  return { fanout, publish };
}

/** Every event the stream carries until it closes. */
async function seqs(stream: ReadableStream<Uint8Array>): Promise<number[]> {
  const out: number[] = [];
  for await (const e of new EventStream(stream)) out.push(e.seq);
  return out;
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

afterEach(() => vi.useRealTimers());

describe("Fanout (an execution's subscribers)", () => {
  it("sends the backlog and then live events to a subscriber, in order, and closes after the terminal event", async () => {
    const { fanout, publish } = withLog(ev(1, "start"), ev(2));
    const stream = fanout.subscribe(0, 2, false)!;
    await tick();
    publish(ev(3));
    publish(ev(4, "done"));
    expect(await seqs(stream)).toEqual([1, 2, 3, 4]);
    expect(fanout.size).toBe(0);
  });

  it("sends events published while a large backlog is still being read from the log after it, each exactly once", async () => {
    const big = "x".repeat(60 * 1024); // 40 of them: more than a reader is ever sent ahead
    const { fanout, publish } = withLog(
      ev(1, "start"),
      ...Array.from({ length: 39 }, (_, i) => ev(i + 2, "stdout", big)),
    );
    const stream = fanout.subscribe(0, 40, false)!;
    for (let seq = 41; seq <= 45; seq++) publish(ev(seq, "stdout", big));
    publish(ev(46, "done"));
    expect(await seqs(stream)).toEqual(upTo(46));
    expect(fanout.size).toBe(0);
  });

  it("resumes after the event a subscriber names", async () => {
    const { fanout, publish } = withLog(ev(1, "start"), ev(2), ev(3));
    const stream = fanout.subscribe(2, 3, false)!;
    publish(ev(4, "done"));
    expect(await seqs(stream)).toEqual([3, 4]);
  });

  it("sends a subscriber resuming past the log's end only events newer than its Last-Event-ID", async () => {
    // Events 1-4 exist; the reader says it has 7 (README: "Lost the connection after event 7?").
    const { fanout, publish } = withLog(ev(1, "start"), ev(2), ev(3), ev(4));
    const stream = fanout.subscribe(7, 4, false)!;
    await tick();
    for (const seq of [5, 6, 7, 8]) publish(ev(seq));
    publish(ev(9, "done"));
    expect(await seqs(stream)).toEqual([8, 9]);
  });

  it("closes a subscriber that already had the terminal event's number when the execution ends", async () => {
    const { fanout, publish } = withLog(ev(1, "start"), ev(2));
    const stream = fanout.subscribe(50, 2, false)!;
    await tick();
    publish(ev(3));
    publish(ev(4, "error"));
    expect(await seqs(stream)).toEqual([]);
    expect(fanout.size).toBe(0);
  });

  it("closes at once a subscriber whose backlog already ends the execution", async () => {
    const { fanout } = withLog(ev(1, "start"), ev(2, "error"));
    const stream = fanout.subscribe(0, 2, true)!;
    expect(await seqs(stream)).toEqual([1, 2]);
    expect(fanout.size).toBe(0);
  });

  it("gives every subscriber the same events", async () => {
    const { fanout, publish } = withLog(ev(1, "start"));
    const streams = Array.from({ length: 5 }, () => fanout.subscribe(0, 1, false)!);
    await tick();
    for (let seq = 2; seq <= 6; seq++) publish(ev(seq));
    publish(ev(7, "done"));
    for (const s of streams) expect(await seqs(s)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("sends a reader that falls behind no more than MAX_QUEUED_BYTES ahead, and all it missed from the log once it reads; refuses subscribers past the cap", async () => {
    const { fanout, publish } = withLog();
    const behind = fanout.subscribe(0, 0, false)!; // not read until the end
    await tick();
    const big = "x".repeat(60 * 1024);
    for (let seq = 1; seq <= 100; seq++) {
      publish(ev(seq, "stdout", big));
      expect(fanout.queuedBytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES);
    }
    publish(ev(101, "done"));
    await tick();
    expect(fanout.size).toBe(1); // behind, not dropped
    expect(await seqs(behind)).toEqual(upTo(101));
    expect(fanout.size).toBe(0);
    const capped = withLog().fanout;
    for (let i = 0; i < MAX_SUBSCRIBERS; i++) expect(capped.subscribe(0, 0, false)).toBeInstanceOf(ReadableStream);
    expect(capped.subscribe(0, 0, false)).toBeUndefined();
  });

  it("sends what a slow reader has not taken yet as one chunk, in order", async () => {
    const { fanout, publish } = withLog(ev(1, "start"));
    const stream = fanout.subscribe(0, 1, false)!;
    await tick();
    for (let seq = 2; seq <= 30; seq++) publish(ev(seq));
    publish(ev(31, "done"));
    const chunks: number[][] = [];
    for await (const batch of new EventStream(stream).batches()) chunks.push(batch.map((e) => e.seq));
    expect(chunks.flat()).toEqual(upTo(31));
    expect(chunks.length).toBeLessThan(10); // not one chunk per event
  });

  it("drops a subscriber whose reader went away, and keeps serving the others", async () => {
    const { fanout, publish } = withLog();
    const gone = fanout.subscribe(0, 0, false)!;
    const stays = fanout.subscribe(0, 0, false)!;
    await tick();
    await gone.cancel();
    publish(ev(1));
    await tick();
    expect(fanout.size).toBe(1);
    publish(ev(2, "done"));
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
