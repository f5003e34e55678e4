/**
 * Live delivery of one execution's events to its subscribers (DESIGN.md 9), as bytes. A new
 * subscriber first gets the backlog up to the moment it attached — read page by page, waiting
 * for its reader between pages, so a long log is never held in memory at once — and then every
 * newer event; events published while its backlog is still being sent are held for it (bounded)
 * and sent after, so nothing falls between replay and live and nothing comes twice.
 * A subscriber is dropped when a write fails, its reader cancels, or it falls too far behind:
 * Workers cannot tell a disconnect any other way, and the client resumes from its last event id.
 */
import type { ExecutionEvent } from "../contract.ts";
import { isTerminalEvent } from "../execution/events.ts";

/** A reader this far behind is dropped (it can resume from Last-Event-ID). */
export const MAX_QUEUED_BYTES = 1024 * 1024;
/** Subscribers one execution serves at once; more are refused. */
export const MAX_SUBSCRIBERS = 1_000;

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Bytes written but not yet taken by the reader. */
  queued: number;
  /** A write the reader has not taken yet; newer bytes wait in `pending` and go as one chunk. */
  inFlight: boolean;
  pending: Uint8Array[];
  /** The backlog is still being sent: live events newer than `upTo` wait in `held`. */
  replaying: boolean;
  upTo: number;
  held: ExecutionEvent[];
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

  constructor(encode: (event: ExecutionEvent) => Uint8Array) {
    this.#encode = encode;
  }

  get size(): number {
    return this.#subscribers.size;
  }

  /**
   * A new byte stream: the backlog (`pages`, the events after `after` up to `upTo`), then live
   * events. When the execution has already ended (`ended`), the stream closes after the
   * backlog. A subscriber resuming past the log's current end (`after` > `upTo`) gets only
   * events newer than `after` (TRT-002 §7: resumed after its Last-Event-ID).
   */
  subscribe(pages: AsyncIterable<ExecutionEvent[]>, upTo: number, ended: boolean, after = 0): ReadableStream<Uint8Array> | undefined {
    if (this.#subscribers.size >= MAX_SUBSCRIBERS) return undefined;
    // A one-chunk pipe: a write completes when the reader has taken it, so a slow reader makes
    // the next events wait in `pending` and travel together (fewer, larger chunks under load).
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>(undefined, { highWaterMark: 1 }, { highWaterMark: 1 });
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
      if (event.seq <= sub.after) {
        // Already had by this subscriber; the end still ends its stream.
        if (terminal && sub.replaying) sub.closeAfterReplay = true;
        else if (terminal) this.#close(sub);
        continue;
      }
      if (sub.replaying) {
        if (event.seq > sub.upTo) {
          sub.held.push(event);
          if (sub.held.length > 1_000) this.#drop(sub);
        }
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
    sub.replaying = false;
    for (const event of sub.held) this.#write(sub, event);
    sub.held = [];
    if (sub.closeAfterReplay) this.#close(sub);
  }

  #write(sub: Subscriber, event: ExecutionEvent): void {
    if (!sub.dropped) this.#writeBytes(sub, this.#encode(event));
  }

  #writeBytes(sub: Subscriber, bytes: Uint8Array): void {
    // Not awaited: one slow reader must not hold up the others or the execution; one that
    // falls too far behind is dropped rather than buffered without bound.
    if (sub.dropped) return;
    if (sub.queued + bytes.byteLength > MAX_QUEUED_BYTES) return this.#drop(sub);
    sub.queued += bytes.byteLength;
    sub.pending.push(bytes);
    if (!sub.inFlight) this.#flush(sub);
  }

  /** Sends everything waiting for a subscriber as one chunk; when the reader takes it, the next. */
  #flush(sub: Subscriber): void {
    if (sub.dropped || sub.pending.length === 0) return;
    const chunk = sub.pending.length === 1 ? sub.pending[0] : concat(sub.pending);
    sub.pending = [];
    sub.inFlight = true;
    sub.writer.write(chunk).then(
      () => {
        sub.queued -= chunk.byteLength;
        sub.inFlight = false;
        this.#flush(sub);
        if (sub.closing && sub.pending.length === 0) this.#close(sub);
      },
      () => this.#drop(sub),
    );
  }

  #close(sub: Subscriber): void {
    this.#subscribers.delete(sub);
    // What is still waiting goes first; the stream closes after it.
    if (sub.inFlight || sub.pending.length > 0) {
      sub.closing = true;
      return;
    }
    sub.writer.close().catch(() => {});
  }

  #drop(sub: Subscriber): void {
    if (sub.dropped) return;
    sub.dropped = true;
    this.#subscribers.delete(sub);
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
