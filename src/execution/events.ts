/**
 * An execution's stream (docs/contract.md#streaming) is its stored events with two views of its record around
 * them: `start` (where and how it runs) and exactly one terminal event (`done` or `error`).
 * Deriving those two from the record means they are never stored and can never disagree
 * with what GET answers.
 */
import type { ExecutionEvent, ExecutionView, Value } from "../contract.ts";
import { isTerminal, toView, type ExecutionRecord } from "./record.ts";

export const TERMINAL_EVENT_TYPES = ["done", "error"] as const;

export function isTerminalEvent(type: string): boolean {
  return (TERMINAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** The `start` event, once the execution runs. */
export function startEvent(r: ExecutionRecord): ExecutionEvent | undefined {
  if (r.start_seq === null || r.running_at === null) return undefined;
  return { seq: r.start_seq, type: "start", data: startData(toView(r)), at: r.running_at };
}

/** The terminal event, once the execution has ended. */
export function terminalEvent(r: ExecutionRecord): ExecutionEvent | undefined {
  if (!isTerminal(r.status) || r.ended_at === null) return undefined;
  const data = terminalData(toView(r));
  return {
    seq: r.last_seq + 1,
    type: terminalType(r.status),
    data: r.dropped_events ? { ...data, dropped_events: r.dropped_events } : data,
    at: r.ended_at,
  };
}

/**
 * What `start` says, read from the view GET answers: the sandbox, and the first attempt's
 * provider (a retry elsewhere does not rewrite where it started).
 */
export function startData(view: ExecutionView): Record<string, Value> {
  return { sandbox: "v8-isolate", worker: view.attempts?.[0]?.provider ?? view.execution.worker };
}

/** What the terminal event says, read from the view GET answers (docs/contract.md#streaming). */
export function terminalData(view: ExecutionView): Record<string, Value> {
  if (view.status === "succeeded") return { output: view.output, execution: view.execution };
  return {
    status: view.status,
    error: view.error,
    partial_output: view.partial_output,
    cancellation: view.cancellation,
    execution: view.execution,
  };
}

export function terminalType(status: ExecutionView["status"]): "done" | "error" {
  return status === "succeeded" ? "done" : "error";
}

/** The record's own events (start, terminal) after a cursor, merged in order with stored ones. */
export function withRecordEvents(r: ExecutionRecord, stored: ExecutionEvent[], after: number): ExecutionEvent[] {
  const own = [startEvent(r), terminalEvent(r)].filter((e): e is ExecutionEvent => e !== undefined && e.seq > after);
  return [...stored, ...own].sort((a, b) => a.seq - b.seq);
}
