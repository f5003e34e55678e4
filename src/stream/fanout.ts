/**
 * Live delivery of one execution's events to its subscribers (DESIGN.md 9), as bytes. A new
 * subscriber first gets the backlog up to the moment it attached — read page by page, waiting
 * for its reader between pages, so a long log is never held in memory at once — and then every
 * newer event; events published while its backlog is still being sent are held for it (bounded)
 * and sent after, so nothing falls between replay and live and nothing comes twice.
 * A subscriber is dropped when a write fails, its reader cancels, or it falls too far behind:
 * Workers cannot tell a disconnect any other way, and the client resumes from its last event id.
 *
 * Memory is bounded per object, whatever the readers do: event bytes waiting for readers (sent
 * but not yet taken, or held back during a replay) are counted per subscriber and in total. A
 * subscriber past MAX_QUEUED_BYTES is dropped; when the total would pass MAX_FANOUT_BYTES, the
 * subscriber furthest behind is dropped first until the new bytes fit. So 100 readers that never
 * read cost at most MAX_FANOUT_BYTES of event bytes between them (8 MiB), plus each one's
 * bookkeeping (a one-chunk TransformStream and a small record), and MAX_SUBSCRIBERS bounds those.
 */
import type { ExecutionEvent } from "../contract.ts";
import { isTerminalEvent } from "../execution/events.ts";

/** A reader this far behind is dropped (it can resume from Last-Event-ID). */
export const MAX_QUEUED_BYTES = 1024 * 1024;
/** Event bytes waiting for all of an object's readers together; past it the slowest is dropped. */
export const MAX_FANOUT_BYTES = 8 * 1024 * 1024;
/** Subscribers one execution serves at once; more are refused. */
export const MAX_SUBSCRIBERS = 1_000;

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Bytes written but not yet taken by the reader. */
  queued: number;
  /** A write the reader has not taken yet; newer bytes wait in `pending` and go as one chunk. */
  inFlight: boolean;
  pending: Uint8Array[];
  /** The backlog is still being sent: live events newer than `upTo` wait in `held` (counted in `queued`). */
  replaying: boolean;
  upTo: number;
  held: Uint8Array[];
  closeAfterReplay: boolean;
  /** What the subscriber already has (Last-Event-ID): nothing at or below it is sent, even live. */
  after: number;
  /** Ended: close once what is waiting has been taken. */
  closing?: boolean;
  dropped: boolean;
}

export class Fanout {
  readonly #subscribers = new Set<Subscriber>();
  readonly #encode: (event: ExecutionEvent) => Uint8Array;
  /** Bytes waiting for readers, all subscribers together (≤ MAX_FANOUT_BYTES), and the most ever. */
  #queued = 0;
  #peak = 0;

  constructor(encode: (event: ExecutionEvent) => Uint8Array) {
    this.#encode = encode;
  }

  get size(): number {
    return this.#subscribers.size;
  }

  /** Event bytes written or held for readers that have not taken them yet. */
  get queuedBytes(): number {
    return this.#queued;
  }

  /** The most `queuedBytes` has ever been. */
  get peakQueuedBytes(): number {
    return this.#peak;
  }

  /**
   * A new byte stream: the backlog (`pages`, the events after `after` up to `upTo`), then live
   * events. When the execution has already ended (`ended`), the stream closes after the
   * backlog. A subscriber resuming past the log's current end (`after` > `upTo`) gets only
   * events newer than `after` (TRT-002 §7: resumed after its Last-Event-ID).
   */
  subscribe(pages: AsyncIterable<ExecutionEvent[]>, upTo: number, ended: boolean, after = 0): ReadableStream<Uint8Array> | undefined {
    if (this.#subscribers.size >= MAX_SUBSCRIBERS) return undefined;
    // A one-chunk pipe: a write completes when the reader has taken it (no buffer on the
    // readable side, so what a reader has not taken is always counted in `queued`), and a slow
    // reader makes the next events wait in `pending` and travel together (fewer, larger chunks).
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, { highWaterMark: 1 }, { highWaterMark: 0 });
    const sub: Subscriber = { writer: writable.getWriter(), queued: 0, inFlight: false, pending: [], replaying: true, upTo, held: [], closeAfterReplay: ended, after, dropped: false };
    this.#subscribers.add(sub);
    void this.#replay(sub, pages);
    return readable;
  }

  /** Sends an event to every subscriber (encoded once for all); a terminal event closes them all. */
  publish(event: ExecutionEvent): void {
    const terminal = isTerminalEvent(event.type);
    let bytes: Uint8Array | undefined;
    for (const sub of [...this.#subscribers]) {
      if (sub.closing || sub.dropped) continue;
      if (event.seq <= sub.after) {
        // Already had by this subscriber; the end still ends its stream.
        if (terminal && sub.replaying) sub.closeAfterReplay = true;
        else if (terminal) this.#close(sub);
        continue;
      }
      if (sub.replaying) {
        if (event.seq > sub.upTo) this.#hold(sub, (bytes ??= this.#encode(event)));
        if (terminal) sub.closeAfterReplay = true;
        continue;
      }
      this.#writeBytes(sub, (bytes ??= this.#encode(event)));
      if (terminal) this.#close(sub);
    }
  }

  async #replay(sub: Subscriber, pages: AsyncIterable<ExecutionEvent[]>): Promise<void> {
    try {
      for await (const page of pages) {
        for (const event of page) this.#write(sub, event);
        if (sub.dropped) return;
        // Backpressure: the next page is read only once the reader has taken most of this one.
        if (sub.queued > MAX_QUEUED_BYTES / 2) await sub.writer.ready;
      }
    } catch (err) {
      console.warn(JSON.stringify({ msg: "stream replay failed", error: String(err) }));
      return this.#drop(sub);
    }
    if (sub.dropped) return;
    sub.replaying = false;
    const held = sub.held;
    sub.held = [];
    for (const bytes of held) this.#release(sub, bytes.byteLength);
    for (const bytes of held) this.#writeBytes(sub, bytes);
    if (sub.closeAfterReplay) this.#close(sub);
  }

  #write(sub: Subscriber, event: ExecutionEvent): void {
    if (!sub.dropped) this.#writeBytes(sub, this.#encode(event));
  }

  /** A live event for a subscriber still replaying: kept (and counted) until its backlog is sent. */
  #hold(sub: Subscriber, bytes: Uint8Array): void {
    if (this.#admit(sub, bytes.byteLength)) sub.held.push(bytes);
  }

  #writeBytes(sub: Subscriber, bytes: Uint8Array): void {
    // Not awaited: one slow reader must not hold up the others or the execution; one that
    // falls too far behind is dropped rather than buffered without bound.
    if (!this.#admit(sub, bytes.byteLength)) return;
    sub.pending.push(bytes);
    if (!sub.inFlight) this.#flush(sub);
  }

  /**
   * Counts `n` more bytes waiting for `sub`, within both bounds: false (and `sub` dropped) when
   * they do not fit; slower subscribers are dropped first to make room in the object's total.
   */
  #admit(sub: Subscriber, n: number): boolean {
    if (sub.dropped) return false;
    if (sub.queued + n > MAX_QUEUED_BYTES) {
      this.#drop(sub);
      return false;
    }
    while (this.#queued + n > MAX_FANOUT_BYTES) {
      const slowest = this.#slowest();
      if (!slowest) break;
      this.#drop(slowest);
      if (slowest === sub) return false;
    }
    sub.queued += n;
    this.#queued += n;
    this.#peak = Math.max(this.#peak, this.#queued);
    return true;
  }

  #release(sub: Subscriber, n: number): void {
    sub.queued -= n;
    this.#queued -= n;
  }

  /** The subscriber with the most bytes waiting (the reader furthest behind). */
  #slowest(): Subscriber | undefined {
    let slowest: Subscriber | undefined;
    for (const s of this.#subscribers) if (!s.dropped && s.queued > 0 && (!slowest || s.queued > slowest.queued)) slowest = s;
    return slowest;
  }

  /** Sends everything waiting for a subscriber as one chunk; when the reader takes it, the next. */
  #flush(sub: Subscriber): void {
    if (sub.dropped || sub.pending.length === 0) return;
    const chunk = sub.pending.length === 1 ? sub.pending[0] : concat(sub.pending);
    sub.pending = [];
    sub.inFlight = true;
    sub.writer.write(chunk).then(
      () => {
        if (sub.dropped) return;
        this.#release(sub, chunk.byteLength);
        sub.inFlight = false;
        this.#flush(sub);
        if (sub.closing && sub.pending.length === 0) this.#close(sub);
      },
      () => this.#drop(sub),
    );
  }

  #close(sub: Subscriber): void {
    // What is still waiting goes first; the stream closes after it (and the subscriber stays
    // counted, and droppable, until then).
    if (sub.inFlight || sub.pending.length > 0) {
      sub.closing = true;
      return;
    }
    this.#subscribers.delete(sub);
    sub.writer.close().catch(() => {});
  }

  #drop(sub: Subscriber): void {
    if (sub.dropped) return;
    sub.dropped = true;
    this.#subscribers.delete(sub);
    this.#release(sub, sub.queued);
    sub.pending = [];
    sub.held = [];
    sub.writer.abort().catch(() => {});
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}
