/**
 * Live delivery of one execution's events to its subscribers (docs/contract.md#streaming), as bytes. The
 * execution's event log (stored before anything is sent) is every subscriber's buffer: a
 * subscriber reads it page by page from where it stands, as fast as its reader takes what it
 * was sent, and once it has caught up it is sent each new event as it is published. A reader
 * that falls behind — a slow client, or a burst of large events — is not sent live events any
 * more; it reads the log again from its last event once its reader has taken half of what
 * waits for it. So nothing falls between log and live, nothing comes twice, and a reader that
 * keeps reading gets every event however far behind it was (docs/contract.md#streaming).
 * A subscriber is dropped when a write fails or its reader cancels (Workers cannot tell a
 * disconnect any other way), or to keep the object's total bound below; a dropped reader's
 * stream errors after a contiguous prefix and the client resumes from its last event id.
 *
 * Memory is bounded per object, whatever the readers do: event bytes waiting for readers (sent
 * but not yet taken) are counted per subscriber and in total. No subscriber is sent more than
 * MAX_QUEUED_BYTES ahead of its reader; when the total would pass MAX_FANOUT_BYTES, the
 * subscriber furthest behind is dropped first until the new bytes fit. A log page is read and
 * written in one synchronous turn, what does not fit is left in the log, so pages are never
 * held while a reader is waited for. So 100 readers that never read cost at most
 * MAX_FANOUT_BYTES of event bytes between them (8 MiB), plus each one's bookkeeping (a
 * one-chunk TransformStream and a small record), and MAX_SUBSCRIBERS bounds those.
 */
import type { ExecutionEvent } from "../contract.ts";
import { isTerminalEvent } from "../execution/events.ts";

/** No subscriber is sent more than this ahead of its reader; past it, it reads the log. */
export const MAX_QUEUED_BYTES = 1024 * 1024;
/** Event bytes waiting for all of an object's readers together; past it the slowest is dropped. */
export const MAX_FANOUT_BYTES = 8 * 1024 * 1024;
/** Subscribers one execution serves at once; more are refused. */
export const MAX_SUBSCRIBERS = 1_000;
/** Events asked of the log at most per page. */
export const LOG_PAGE = 200;

/**
 * The execution's log: its events after `after` and at most `upTo`, in order, at most `limit`
 * of them (fewer only when none is left up to `upTo`). Synchronous: what a page holds is
 * written or let go in the same turn.
 */
export type ReadLog = (after: number, upTo: number, limit: number) => ExecutionEvent[];

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** The last event handed to this subscriber (written, or waiting to be written). */
  sent: number;
  /** Bytes written but not yet taken by the reader. */
  queued: number;
  /** A write the reader has not taken yet; newer bytes wait in `pending` and go as one chunk. */
  inFlight: boolean;
  pending: Uint8Array[];
  /** Reading the log (its backlog, or after falling behind) rather than being sent live events. */
  reading: boolean;
  /** How many events to ask of the log next: about twice what fitted last time. */
  pageLimit: number;
  /** Called when the reader has taken a chunk (or the subscriber is dropped). */
  wake?: () => void;
  /** Ended: close once what is waiting has been taken. */
  closing?: boolean;
  dropped: boolean;
}

export class Fanout {
  readonly #subscribers = new Set<Subscriber>();
  readonly #encode: (event: ExecutionEvent) => Uint8Array;
  readonly #read: ReadLog;
  /** The log's last event so far, and whether it is the terminal one. */
  #last = 0;
  #ended = false;
  /** Bytes waiting for readers, all subscribers together (≤ MAX_FANOUT_BYTES), and the most ever. */
  #queued = 0;
  #peak = 0;

  constructor(encode: (event: ExecutionEvent) => Uint8Array, read: ReadLog) {
    this.#encode = encode;
    this.#read = read;
  }

  get size(): number {
    return this.#subscribers.size;
  }

  /** Event bytes written for readers that have not taken them yet. */
  get queuedBytes(): number {
    return this.#queued;
  }

  /** The most `queuedBytes` has ever been. */
  get peakQueuedBytes(): number {
    return this.#peak;
  }

  /**
   * A new byte stream of the events after `after`: from the log (which holds the events up to
   * `upTo`), then live. When the execution has already ended (`ended`, `upTo` its terminal
   * event), the stream closes after the log.
   */
  subscribe(after: number, upTo: number, ended: boolean): ReadableStream<Uint8Array> | undefined {
    if (this.#subscribers.size >= MAX_SUBSCRIBERS) return undefined;
    this.#last = Math.max(this.#last, upTo);
    this.#ended ||= ended;
    // A one-chunk pipe: a write completes when the reader has taken it (no buffer on the
    // readable side, so what a reader has not taken is always counted in `queued`), and a slow
    // reader makes the next events wait in `pending` and travel together (fewer, larger chunks).
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(
      undefined,
      { highWaterMark: 1 },
      { highWaterMark: 0 },
    );
    const sub: Subscriber = {
      writer: writable.getWriter(),
      sent: after,
      queued: 0,
      inFlight: false,
      pending: [],
      reading: true,
      pageLimit: LOG_PAGE,
      dropped: false,
    };
    this.#subscribers.add(sub);
    void this.#readLog(sub);
    return readable;
  }

  /**
   * Sends an event (already in the log) to every subscriber that has caught up, encoded once
   * for all; a terminal event closes them. One that falls behind reads the log instead.
   */
  publish(event: ExecutionEvent): void {
    const terminal = isTerminalEvent(event.type);
    this.#last = Math.max(this.#last, event.seq);
    this.#ended ||= terminal;
    let bytes: Uint8Array | undefined;
    for (const sub of [...this.#subscribers]) {
      // A subscriber reading the log gets this event from it.
      if (sub.closing || sub.dropped || sub.reading) continue;
      if (event.seq <= sub.sent) {
        // Already had (a Last-Event-ID past the log's end); the end still ends its stream.
        if (terminal) this.#close(sub);
        continue;
      }
      bytes ??= this.#encode(event);
      if (sub.queued + bytes.byteLength > MAX_QUEUED_BYTES) {
        // Fallen behind: not dropped, and not buffered either — it reads this event and the
        // ones after it from the log once its reader has taken what it was sent.
        sub.reading = true;
        void this.#readLog(sub);
        continue;
      }
      if (!this.#admit(sub, bytes.byteLength)) continue;
      sub.sent = event.seq;
      this.#enqueue(sub, bytes);
      if (terminal) this.#close(sub);
    }
  }

  /**
   * Sends a subscriber the log from its last event, at most MAX_QUEUED_BYTES ahead of its
   * reader, until it has caught up with the last event published; then it is live (or closed,
   * when that was the terminal event). Checking and switching happen in one turn: no gap.
   */
  async #readLog(sub: Subscriber): Promise<void> {
    try {
      for (;;) {
        // Wait until the reader has taken at least half of what it was sent.
        while (!sub.dropped && sub.queued > MAX_QUEUED_BYTES / 2)
          await new Promise<void>((resolve) => (sub.wake = resolve));
        if (sub.dropped) return;
        if (sub.sent >= this.#last) break;
        const page = this.#read(sub.sent, this.#last, sub.pageLimit);
        let fitted = 0;
        for (const event of page) {
          if (event.seq <= sub.sent) continue;
          const bytes = this.#encode(event);
          // What does not fit stays in the log for the next page.
          if (sub.queued > 0 && sub.queued + bytes.byteLength > MAX_QUEUED_BYTES) break;
          if (!this.#admit(sub, bytes.byteLength)) return;
          sub.sent = event.seq;
          this.#enqueue(sub, bytes);
          fitted++;
        }
        if (fitted === 0) {
          // The log has nothing more up to its last event: a subscriber that cannot be served.
          if (sub.queued === 0) throw new Error(`the event log has nothing after ${sub.sent} up to ${this.#last}`);
          // The next event is larger than the room left: wait for the reader to take more.
          sub.pageLimit = 1;
          await new Promise<void>((resolve) => (sub.wake = resolve));
          continue;
        }
        sub.pageLimit = Math.min(LOG_PAGE, fitted * 2);
      }
    } catch (err) {
      console.warn(JSON.stringify({ msg: "stream replay failed", error: String(err) }));
      return this.#drop(sub);
    }
    sub.reading = false;
    if (this.#ended) this.#close(sub);
  }

  /**
   * Counts `n` more bytes waiting for `sub` in the object's total: false (and `sub` dropped)
   * when they do not fit; slower subscribers are dropped first to make room.
   */
  #admit(sub: Subscriber, n: number): boolean {
    if (sub.dropped) return false;
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

  /** Bytes already admitted: written now, or with the next chunk when the reader takes this one. */
  #enqueue(sub: Subscriber, bytes: Uint8Array): void {
    // Not awaited: one slow reader must not hold up the others or the execution.
    sub.pending.push(bytes);
    if (!sub.inFlight) this.#flush(sub);
  }

  #release(sub: Subscriber, n: number): void {
    sub.queued -= n;
    this.#queued -= n;
  }

  /** The subscriber with the most bytes waiting (the reader furthest behind). */
  #slowest(): Subscriber | undefined {
    let slowest: Subscriber | undefined;
    for (const s of this.#subscribers)
      if (!s.dropped && s.queued > 0 && (!slowest || s.queued > slowest.queued)) slowest = s;
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
        this.#wake(sub);
        if (sub.closing && sub.pending.length === 0 && !sub.inFlight) this.#close(sub);
      },
      () => this.#drop(sub),
    );
  }

  #wake(sub: Subscriber): void {
    const wake = sub.wake;
    sub.wake = undefined;
    wake?.();
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
    sub.writer.abort().catch(() => {});
    this.#wake(sub);
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
