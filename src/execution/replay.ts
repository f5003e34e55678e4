/**
 * The stream of a fast-path execution (docs/contract.md#streaming). It ran with nobody able to
 * watch it, so it has no object and no stored events: what is left is its finished record, the
 * view GET answers. Its stream is replayed from that view — `start` and one terminal event, built
 * the same way an object builds them from its record — so every execution id can be watched alike.
 *
 * Numbering. An object numbers `start` one past the events it stored while waiting (a fast-path
 * call never waits, so 1) and the terminal one past the last event. A fast-path call kept none of
 * its events (they had no reader) and its view does not say how many there were, so the replay
 * numbers its own without a gap: `start` 1, the terminal event 2 — or 1 when it ended before it ran.
 *
 * Instants. The view carries durations, not instants; the id carries when the call was accepted
 * (src/execution/ids.ts), so `start` is at accepted + started_ms and the terminal event at
 * start + duration_ms (at accepted + queued_ms when it never ran).
 */
import type { ExecutionEvent, ExecutionView } from "../contract.ts";
import type { EventSource } from "../stream/tenant-streams.ts";
import { startData, terminalData, terminalType } from "./events.ts";

/** The seq of a replayed execution's terminal event: resuming at or past it leaves nothing. */
export function replayEnd(view: ExecutionView): number {
  return view.execution.started_ms === null ? 1 : 2;
}

/** A finished fast-path execution's events after `after`, from its view and when it was accepted. */
export function replayEvents(view: ExecutionView, acceptedAt: number, after: number): ExecutionEvent[] {
  const x = view.execution;
  const started = x.started_ms === null ? null : acceptedAt + x.started_ms;
  const ended = started === null ? acceptedAt + (x.queued_ms ?? 0) : started + (x.duration_ms ?? 0);
  const events: ExecutionEvent[] = [];
  if (started !== null) events.push({ seq: 1, type: "start", data: startData(view), at: started });
  events.push({ seq: replayEnd(view), type: terminalType(view.status), data: terminalData(view), at: ended });
  return events.filter((e) => e.seq > after);
}

/** Events already at hand, as a face reads a stream: one at a time, or all together as one batch. */
export function eventsAtHand(events: ExecutionEvent[]): EventSource {
  return {
    async *batches() {
      if (events.length > 0) yield events;
    },
    async *[Symbol.asyncIterator]() {
      yield* events;
    },
  };
}
