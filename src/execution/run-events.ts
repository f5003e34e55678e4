/**
 * A run's event log: numbers each event, keeps the log within its bounds (src/execution/event-log-limits.ts;
 * past them events are dropped and counted, and a `log` event says so once) and grows the
 * partial output from `partial` events by the tool's merge rule (docs/contract.md#partial-output).
 */
import type { PartialMerge } from "../../providers/sdk/protocol.ts";
import { toJson } from "../codec/bytes.ts";
import { MAX_EVENT_BYTES, MAX_EVENTS, MAX_LOG_BYTES } from "./event-log-limits.ts";
import { PartialOutput, PartialShapeError } from "./partial-output.ts";

/** Where the numbered events go: the run's host. */
export interface EventSink {
  emit(seq: number, type: string, data: unknown, at: number): void;
}

export class RunEvents {
  readonly #sink: EventSink;
  #seq: number;
  #emitted = 0;
  #logBytes = 0;
  #dropped = 0;
  readonly #partial: PartialOutput;

  /** `lastSeq`: the newest event number the record holds; the next event is one past it. */
  constructor(sink: EventSink, lastSeq: number, merge: PartialMerge | undefined) {
    this.#sink = sink;
    this.#seq = lastSeq;
    this.#partial = new PartialOutput(merge);
  }

  /** The newest event number given out so far. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** How many events were dropped past the log's bounds. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The merged partial output so far (undefined before any). */
  partial(): unknown {
    return this.#partial.value();
  }

  /** Numbers, bounds and hands on one event; past the log's bounds events are dropped and counted, once said in a `log` event. */
  append(type: string, data: unknown): void {
    const text = toJson(data ?? null);
    const full = this.#emitted >= MAX_EVENTS - 1 || this.#logBytes + text.length > MAX_LOG_BYTES;
    if (full || text.length > MAX_EVENT_BYTES) {
      if (this.#dropped++ === 0 && full)
        this.#store("log", {
          message: "the event log is full; later events are dropped (the terminal event counts them)",
          truncated: true,
        });
      return;
    }
    this.#logBytes += text.length;
    if (type === "partial") {
      try {
        this.#partial.add(data);
      } catch (err) {
        if (err instanceof PartialShapeError) throw new Error(`partial event refused: ${err.message}`);
        throw err;
      }
    }
    this.#store(type, data);
  }

  #store(type: string, data: unknown): void {
    this.#emitted++;
    this.#sink.emit(++this.#seq, type, data, Date.now());
  }

  /** A value the handler still returned after a cancel: kept as partial output when it fits the merge rule. */
  mergeReturned(data: unknown): void {
    try {
      this.#partial.add(data);
    } catch {
      // A returned value that does not fit the tool's merge rule replaces nothing.
    }
  }
}
