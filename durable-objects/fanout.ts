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
}

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
  subscribe(backlog: StreamEvent[]): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const sub: Subscriber = { writer: writable.getWriter() };
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
    // Not awaited: one slow reader must not hold up the others or the execution.
    sub.writer.write(encoder.encode(text)).catch(() => this.drop(sub));
  }

  private close(sub: Subscriber): void {
    this.subscribers.delete(sub);
    sub.writer.close().catch(() => {});
    this.stopHeartbeatIfIdle();
  }

  private drop(sub: Subscriber): void {
    if (!this.subscribers.delete(sub)) return;
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
