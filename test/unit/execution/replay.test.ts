/**
 * A fast-path execution's replayed stream (src/execution/replay.ts) is what its object would have
 * sent from the same record: `start` and the terminal event, numbered and stamped alike, with the
 * data of the view GET answers (docs/contract.md#streaming).
 */
import { describe, expect, it } from "vitest";
import { executionRecord } from "../../fixtures/record.ts";
import { startEvent, terminalEvent } from "../../../src/execution/events.ts";
import { toView, type ExecutionRecord } from "../../../src/execution/record.ts";
import { replayEnd, replayEvents } from "../../../src/execution/replay.ts";
import type { AttemptRecord } from "../../../src/contract.ts";
import { errorBody } from "../../../src/errors.ts";

const attempt = (provider: string, outcome: string): AttemptRecord => ({
  attempt: 1,
  provider,
  outcome,
  started_ms: 7,
  duration_ms: 30,
  provider_latency_ms: 12,
  cpu_ms: null,
});

/** A record that ran on the fast path: started with no event before it, none stored after. */
function ran(status: "succeeded" | "failed" | "timed_out", extra: Partial<ExecutionRecord>): ExecutionRecord {
  return executionRecord(status, {
    provider: "std",
    scheduled_at: 10_002,
    running_at: 10_007,
    ended_at: 10_037,
    start_seq: 1,
    last_seq: 1,
    ...extra,
  });
}

describe("replaying a fast-path execution from its view", () => {
  const cases: [string, ExecutionRecord][] = [
    ["success", ran("succeeded", { output: { sum: 3 }, attempts: [attempt("std", "succeeded")] })],
    [
      "failure",
      ran("failed", {
        error: errorBody("tool_error", "no"),
        partial_output: [1],
        attempts: [attempt("std", "tool_error")],
      }),
    ],
    ["timeout", ran("timed_out", { error: errorBody("timeout", "late"), attempts: [] })],
  ];

  for (const [name, record] of cases) {
    it(`sends what the object would send from the same record (${name})`, () => {
      const fromObject = [startEvent(record), terminalEvent(record)];
      expect(replayEvents(toView(record), record.accepted_at, 0)).toEqual(fromObject);
      expect(replayEnd(toView(record))).toBe(2);
    });
  }

  it("sends only what follows the cursor, and nothing at or past the terminal event", () => {
    const record = cases[0]![1];
    const view = toView(record);
    expect(replayEvents(view, record.accepted_at, 1)).toEqual([terminalEvent(record)]);
    expect(replayEvents(view, record.accepted_at, 2)).toEqual([]);
  });

  it("numbers the terminal event 1 when the execution ended before it ran", () => {
    const record = executionRecord("failed", {
      scheduled_at: 10_004,
      ended_at: 10_004,
      error: errorBody("internal", "lost"),
    });
    const view = toView(record);
    expect(replayEnd(view)).toBe(1);
    const events = replayEvents(view, record.accepted_at, 0);
    expect(events).toEqual([{ ...terminalEvent(record)!, at: 10_004 }]);
  });
});
