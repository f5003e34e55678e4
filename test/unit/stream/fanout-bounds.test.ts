/**
 * Bounded streams (docs/contract.md#streaming): an execution's fan-out holds at most MAX_FANOUT_BYTES of event
 * bytes for its readers together, whatever they do. The real Fanout with real web streams:
 * 100 subscribers that never read, one that keeps up.
 */
import { describe, expect, it } from "vitest";
import type { ExecutionEvent } from "../../../src/contract.ts";
import { Fanout, MAX_FANOUT_BYTES, MAX_QUEUED_BYTES } from "../../../src/stream/fanout.ts";
import { encodeEventLine } from "../../../src/stream/ndjson.ts";

const tick = () => new Promise((r) => setImmediate(r));

/** A Fanout over an in-memory event log: `publish` stores the event first, as the object does. */
function withLog() {
  const log: ExecutionEvent[] = [];
  // Events come in seq order from 1: the log's index is seq - 1.
  const fanout = new Fanout(encodeEventLine, (after, upTo, limit) => log.slice(after, Math.min(upTo, after + limit)));
  const publish = (e: ExecutionEvent) => {
    log.push(e);
    fanout.publish(e);
  };
  return { fanout, publish };
}

/** Reads a stream to its end or its error: the events it carried, and how it ended. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<{ seqs: number[]; ended: "closed" | "aborted" }> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return { seqs: seqsOf(text), ended: "aborted" };
  }
  return { seqs: seqsOf(text), ended: "closed" };
}
const seqsOf = (text: string) =>
  text
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as ExecutionEvent).seq);

describe("an execution's fan-out under 100 readers that never read", () => {
  it(`holds at most ${MAX_FANOUT_BYTES / 1024 / 1024} MiB of event bytes between them, dropping the furthest behind, while a reader that keeps up gets every event`, async () => {
    const { fanout, publish } = withLog();
    const slow = Array.from({ length: 100 }, () => fanout.subscribe(0, 0, false)!);
    const fast = drain(fanout.subscribe(0, 0, false)!);
    await tick(); // the (empty) backlogs are sent: every subscriber is live
    const EVENTS = 3_000;
    const payload = "x".repeat(4_000); // ~4 KiB a line: 12 MB for each reader in all
    let most = 0;
    for (let seq = 1; seq <= EVENTS; seq++) {
      publish({ seq, type: "stdout", data: { payload }, at: Date.now() });
      most = Math.max(most, fanout.queuedBytes);
      await tick(); // the fast reader takes what it was sent
    }
    publish({ seq: EVENTS + 1, type: "done", data: {}, at: Date.now() });

    expect(most).toBeLessThanOrEqual(MAX_FANOUT_BYTES);
    // Within each publish too, not only between them.
    expect(fanout.peakQueuedBytes).toBeGreaterThanOrEqual(most);
    expect(fanout.peakQueuedBytes).toBeLessThanOrEqual(MAX_FANOUT_BYTES);
    expect(most).toBeGreaterThan(MAX_FANOUT_BYTES / 2); // the bound was reached, not avoided
    const got = await fast;
    expect(got.ended).toBe("closed");
    expect(got.seqs).toEqual(Array.from({ length: EVENTS + 1 }, (_, i) => i + 1));
    // The readers furthest behind were dropped (they resume from their last event id), having
    // been sent a contiguous prefix of the events; the others, reading at last, get every event
    // from the log; and nothing is left waiting for anyone.
    const ends = await Promise.all(slow.map(drain));
    for (const d of ends) expect(d.seqs).toEqual(d.seqs.map((_, i) => i + 1));
    const kept = ends.filter((d) => d.ended === "closed");
    for (const d of kept) expect(d.seqs).toHaveLength(EVENTS + 1);
    // Both kinds happened, so both claims were tested: some were dropped, and the rest — not
    // none of them — got every event.
    expect(ends.length - kept.length, "readers dropped").toBeGreaterThan(0);
    expect(kept.length, "readers kept").toBeGreaterThan(0);
    expect(fanout.size).toBe(0);
    expect(fanout.queuedBytes).toBe(0);
  });

  it("counts every byte a reader has not taken, the first chunk included", async () => {
    const { fanout, publish } = withLog();
    fanout.subscribe(0, 0, false);
    await tick();
    let sent = 0;
    for (let seq = 1; seq <= 5; seq++) {
      const event: ExecutionEvent = { seq, type: "stdout", data: { n: seq }, at: 0 };
      sent += encodeEventLine(event).byteLength;
      publish(event);
      await tick();
    }
    expect(fanout.queuedBytes).toBe(sent);
  });

  it(`holds a lone reader that falls behind at ${MAX_QUEUED_BYTES / 1024 / 1024} MiB, and gives it every event from the log once it reads`, async () => {
    const { fanout, publish } = withLog();
    const slow = fanout.subscribe(0, 0, false)!;
    const fast = drain(fanout.subscribe(0, 0, false)!);
    await tick();
    const payload = "y".repeat(10_000);
    for (let seq = 1; seq <= 200; seq++) {
      publish({ seq, type: "stdout", data: { payload }, at: Date.now() });
      expect(fanout.queuedBytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES + 20_000);
      await tick();
    }
    publish({ seq: 201, type: "done", data: {}, at: Date.now() });
    expect((await fast).seqs).toHaveLength(201);
    expect(fanout.queuedBytes).toBeLessThanOrEqual(MAX_QUEUED_BYTES);
    const late = await drain(slow);
    expect(late.ended).toBe("closed");
    expect(late.seqs).toEqual(Array.from({ length: 201 }, (_, i) => i + 1));
    expect(fanout.size).toBe(0);
  });
});
