import { afterEach, describe, expect, it, vi } from "vitest";
import { Fanout, MAX_SUBSCRIBERS } from "../../durable-objects/fanout.ts";
import { HEARTBEAT_MS, type StreamEvent } from "../../src/stream/sse.ts";

const ev = (seq: number, type = "stdout"): StreamEvent => ({ seq, type, data: seq, at: 0 });

/** Reads whatever the stream has produced so far (and whether it closed). */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>, frames: number): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  while ((text.match(/\n\n/g) ?? []).length < frames) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  return text;
}

const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));

afterEach(() => vi.useRealTimers());

describe("Fanout", () => {
  it("drops a reader that falls too far behind, and refuses subscribers past the cap", async () => {
    const fanout = new Fanout();
    fanout.subscribe([]); // never read
    const big = "x".repeat(60 * 1024);
    for (let seq = 1; seq <= 100; seq++) fanout.publish({ seq, type: "stdout", data: big, at: 0 });
    await new Promise((r) => setTimeout(r, 0));
    expect(fanout.size).toBe(0);
    const capped = new Fanout();
    for (let i = 0; i < MAX_SUBSCRIBERS; i++) expect(capped.subscribe([])).toBeDefined();
    expect(capped.subscribe([])).toBeUndefined();
  });

  it("sends the backlog and then live events to a subscriber, in order", async () => {
    const fanout = new Fanout();
    const reader = fanout.subscribe([ev(1, "start"), ev(2)])!.getReader();
    fanout.publish(ev(3));
    fanout.publish(ev(4, "done"));
    const text = await drain(reader, 10);
    expect(text.startsWith("retry: ")).toBe(true);
    expect(ids(text)).toEqual([1, 2, 3, 4]);
    expect((await reader.read()).done).toBe(true); // closed after the terminal event
    expect(fanout.size).toBe(0);
  });

  it("closes at once a subscriber whose backlog already ends the execution", async () => {
    const fanout = new Fanout();
    const reader = fanout.subscribe([ev(1, "start"), ev(2, "error")])!.getReader();
    expect(ids(await drain(reader, 10))).toEqual([1, 2]);
    expect(fanout.size).toBe(0);
  });

  it("gives every subscriber the same events", async () => {
    const fanout = new Fanout();
    const readers = Array.from({ length: 5 }, () => fanout.subscribe([ev(1, "start")])!.getReader());
    for (let seq = 2; seq <= 6; seq++) fanout.publish(ev(seq));
    fanout.publish(ev(7, "done"));
    for (const r of readers) expect(ids(await drain(r, 10))).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("drops a subscriber whose reader went away, and keeps serving the others", async () => {
    const fanout = new Fanout();
    const gone = fanout.subscribe([])!.getReader();
    const stays = fanout.subscribe([])!.getReader();
    await gone.cancel();
    fanout.publish(ev(1));
    await new Promise((r) => setTimeout(r, 0));
    expect(fanout.size).toBe(1);
    fanout.publish(ev(2, "done"));
    expect(ids(await drain(stays, 10))).toEqual([1, 2]);
  });

  it("sends a heartbeat comment every HEARTBEAT_MS while a subscriber is attached", async () => {
    vi.useFakeTimers();
    const fanout = new Fanout();
    const reader = fanout.subscribe([])!.getReader();
    vi.advanceTimersByTime(HEARTBEAT_MS * 2);
    fanout.publish(ev(1, "done"));
    const text = await drain(reader, 10);
    expect(text.match(/^: heartbeat$/gm)).toHaveLength(2);
    expect(HEARTBEAT_MS).toBeLessThanOrEqual(15_000);
  });
});
