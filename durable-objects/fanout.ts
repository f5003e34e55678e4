/**
 * Live delivery of an execution's events to its SSE subscribers (DESIGN.md 9). A subscriber
 * gets the stored events after its cursor and then every new one, in one turn, so nothing
 * falls between replay and live. It is dropped when a write to it fails or its reader
 * cancels: Workers cannot tell a disconnect any other way.
 */
import { frameEvent, frameHeartbeat, frameRetry, HEARTBEAT_MS, isTerminalEvent, type StreamEvent } from "../src/stream/sse.ts";

const encoder = new TextEncoder();

interface Subscriber {
  writer: WritableStreamDefaultWriter<Uint8Array>;
  /** Bytes written but not yet taken by the reader. */
  queued: number;
  dropped: boolean;
}

/** A reader this far behind is dropped (it can resume from Last-Event-ID). */
export const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
/** Subscribers one execution serves at once; more are refused. */
export const MAX_SUBSCRIBERS = 1_000;

export class Fanout {
  private readonly subscribers = new Set<Subscriber>();
  private heartbeat: ReturnType<typeof setInterval> | undefined;

  get size(): number {
    return this.subscribers.size;
  }

  /**
   * A new byte stream that starts with `backlog`. When the backlog already holds the terminal
   * event the stream closes after it; otherwise it stays open for `publish`.
   */
  subscribe(backlog: StreamEvent[]): ReadableStream<Uint8Array> | undefined {
    if (this.subscribers.size >= MAX_SUBSCRIBERS) return undefined;
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const sub: Subscriber = { writer: writable.getWriter(), queued: 0, dropped: false };
    this.write(sub, frameRetry());
    for (const event of backlog) this.write(sub, frameEvent(event));
    if (backlog.some((e) => isTerminalEvent(e.type))) {
      this.close(sub);
    } else {
      this.subscribers.add(sub);
      this.heartbeat ??= setInterval(() => this.beat(), HEARTBEAT_MS);
    }
    return readable;
  }

  /** Sends a stored event to every subscriber; a terminal event closes them all. */
  publish(event: StreamEvent): void {
    const text = frameEvent(event);
    for (const sub of this.subscribers) this.write(sub, text);
    if (isTerminalEvent(event.type)) for (const sub of [...this.subscribers]) this.close(sub);
  }

  private beat(): void {
    for (const sub of this.subscribers) this.write(sub, frameHeartbeat());
  }

  private write(sub: Subscriber, text: string): void {
    // Not awaited: one slow reader must not hold up the others or the execution; one that
    // falls too far behind is dropped rather than buffered without bound.
    if (sub.dropped) return;
    const bytes = encoder.encode(text);
    if (sub.queued + bytes.byteLength > MAX_QUEUED_BYTES) return this.drop(sub);
    sub.queued += bytes.byteLength;
    sub.writer.write(bytes).then(
      () => (sub.queued -= bytes.byteLength),
      () => this.drop(sub),
    );
  }

  private close(sub: Subscriber): void {
    this.subscribers.delete(sub);
    sub.writer.close().catch(() => {});
    this.stopHeartbeatIfIdle();
  }

  private drop(sub: Subscriber): void {
    if (sub.dropped) return;
    sub.dropped = true;
    this.subscribers.delete(sub);
    sub.writer.abort().catch(() => {});
    this.stopHeartbeatIfIdle();
  }

  private stopHeartbeatIfIdle(): void {
    if (this.subscribers.size === 0 && this.heartbeat !== undefined) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
  }
}
