import { fromJson, toJson } from "../src/codec/bytes.ts";

/**
 * The execution's event log (TRT-002 §7): every event gets the next sequence number and is
 * stored before anyone is sent it (DESIGN.md 9), so a replay can never miss or repeat one.
 */

export interface StoredEvent {
  seq: number;
  type: string;
  data: unknown;
  at: number;
}

/** Per-event and per-execution bounds, so a chatty tool cannot exhaust the object's storage. */
export const MAX_EVENT_BYTES = 64 * 1024;
export const MAX_EVENTS = 10_000;

export class EventLog {
  private readonly sql: SqlStorage;
  private seq: number;
  private dropped = 0;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS events (seq INTEGER PRIMARY KEY, type TEXT NOT NULL, data TEXT NOT NULL, at INTEGER NOT NULL)");
    this.seq = sql.exec<{ n: number | null }>("SELECT MAX(seq) AS n FROM events").one().n ?? 0;
  }

  get lastSeq(): number {
    return this.seq;
  }

  /** Appends an event; terminal events always fit, others over the bounds are dropped and counted. */
  append(type: string, data: unknown, at: number): StoredEvent | undefined {
    const terminal = type === "done" || type === "error";
    let text = toJson(data ?? null);
    if (!terminal && (this.seq >= MAX_EVENTS || text.length > MAX_EVENT_BYTES)) {
      this.dropped++;
      return undefined;
    }
    if (terminal && this.dropped > 0) {
      data = { ...(data as object), dropped_events: this.dropped };
      text = toJson(data);
    }
    const event: StoredEvent = { seq: ++this.seq, type, data: fromJson(text), at };
    this.sql.exec("INSERT INTO events (seq, type, data, at) VALUES (?, ?, ?, ?)", event.seq, type, text, at);
    return event;
  }

  after(seq: number): StoredEvent[] {
    return this.sql
      .exec<{ seq: number; type: string; data: string; at: number }>("SELECT seq, type, data, at FROM events WHERE seq > ? ORDER BY seq", seq)
      .toArray()
      .map((r) => ({ seq: r.seq, type: r.type, data: fromJson(r.data), at: r.at }));
  }

  /** The data of the newest event of a type (the latest `partial` is the partial output). */
  lastData(type: string): unknown {
    const row = this.sql.exec<{ data: string }>("SELECT data FROM events WHERE type = ? ORDER BY seq DESC LIMIT 1", type).toArray()[0];
    return row ? fromJson(row.data) : undefined;
  }
}
