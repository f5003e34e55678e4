import { describe, expect, it } from "vitest";
import { executionRecord } from "../../fixtures/record.ts";
import {
  IllegalTransition,
  isTerminal,
  isWaiting,
  toView,
  transition,
  type ExecutionRecord,
} from "../../../src/execution/record.ts";
import type { ExecutionStatus } from "../../../src/contract.ts";

const ALL: ExecutionStatus[] = [
  "awaiting_approval",
  "queued",
  "scheduled",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "timed_out",
];
const TERMINAL: ExecutionStatus[] = ["succeeded", "failed", "cancelled", "timed_out"];

/**
 * docs/contract.md#statuses: queued → scheduled → running → (succeeded | failed | cancelled | timed_out).
 * Besides the main line, an execution may end before it runs: cancelled or failed while
 * queued (cancel, or a dispatch failure), and cancelled, failed or timed out once scheduled.
 * A call that needs a person's approval starts awaiting it, and goes on to the queue
 * (approved), or ends cancelled (before_start) or failed (rejected, expired).
 */
const LEGAL: ReadonlyArray<[ExecutionStatus, ExecutionStatus]> = [
  ["awaiting_approval", "queued"],
  ["awaiting_approval", "cancelled"],
  ["awaiting_approval", "failed"],
  ["queued", "scheduled"],
  ["queued", "cancelled"],
  ["queued", "failed"],
  ["scheduled", "running"],
  ["scheduled", "cancelled"],
  ["scheduled", "failed"],
  ["scheduled", "timed_out"],
  ["running", "succeeded"],
  ["running", "failed"],
  ["running", "cancelled"],
  ["running", "timed_out"],
];
const isLegal = (from: ExecutionStatus, to: ExecutionStatus) => LEGAL.some(([f, t]) => f === from && t === to);
const ILLEGAL = ALL.flatMap((from) =>
  ALL.filter((to) => !isLegal(from, to)).map((to) => [from, to] as [ExecutionStatus, ExecutionStatus]),
);

const record = (status: Parameters<typeof executionRecord>[0], overrides: Parameters<typeof executionRecord>[1] = {}) =>
  executionRecord(status, { accepted_at: 1_000, ...overrides });

describe("transition (docs/contract.md#statuses)", () => {
  it("walks the main line queued → scheduled → running → succeeded, stamping each step", () => {
    const queued = record("queued");
    const scheduled = transition(queued, "scheduled", 1_010);
    const running = transition(scheduled, "running", 1_020, { provider: "std" });
    const done = transition(running, "succeeded", 1_500, { output: { text: "hi" } });
    expect(done).toMatchObject({
      status: "succeeded",
      provider: "std",
      output: { text: "hi" },
      accepted_at: 1_000,
      scheduled_at: 1_010,
      running_at: 1_020,
      ended_at: 1_500,
    });
  });

  it.each(TERMINAL)("ends a running execution as %s and stamps ended_at", (to) => {
    const running = record("running", { scheduled_at: 1_001, running_at: 1_002 });
    const ended = transition(running, to, 2_000);
    expect(ended.status).toBe(to);
    expect(ended.ended_at).toBe(2_000);
    expect(ended.running_at).toBe(1_002);
    expect(isTerminal(ended.status)).toBe(true);
  });

  it("sets only scheduled_at on scheduling", () => {
    const next = transition(record("queued"), "scheduled", 1_234);
    expect([next.scheduled_at, next.running_at, next.ended_at]).toEqual([1_234, null, null]);
  });

  it("sets only running_at on starting", () => {
    const next = transition(record("scheduled", { scheduled_at: 1_100 }), "running", 1_200);
    expect([next.scheduled_at, next.running_at, next.ended_at]).toEqual([1_100, 1_200, null]);
  });

  it("ends an execution before it runs without inventing a start time", () => {
    const cancelled = transition(record("queued"), "cancelled", 1_050);
    expect([cancelled.status, cancelled.scheduled_at, cancelled.running_at, cancelled.ended_at]).toEqual([
      "cancelled",
      null,
      null,
      1_050,
    ]);
  });

  it("records the error given with a failure", () => {
    const error = { code: "tool_error" as const, message: "no", type: "execution_error" as const, retryable: false };
    expect(transition(record("running"), "failed", 3_000, { error }).error).toEqual(error);
  });

  it("returns a new record and leaves the old one as it was", () => {
    const before = record("queued");
    const after = transition(before, "scheduled", 1_010);
    expect(after).not.toBe(before);
    expect(before.status).toBe("queued");
    expect(before.scheduled_at).toBeNull();
  });

  it.each(LEGAL)("allows %s → %s", (from, to) => {
    expect(transition(record(from), to, 5_000).status).toBe(to);
  });

  it.each(TERMINAL)("refuses every move out of %s, keeping the record final", (from) => {
    const ended = record(from, { ended_at: 2_000, output: { kept: true } });
    for (const to of ALL) expect(() => transition(ended, to, 9_000), `${from} → ${to}`).toThrow(IllegalTransition);
    expect(ended).toMatchObject({ status: from, ended_at: 2_000, output: { kept: true } });
  });

  it.each(ILLEGAL)("refuses %s → %s with IllegalTransition", (from, to) => {
    expect(() => transition(record(from), to, 5_000)).toThrow(IllegalTransition);
    expect(() => transition(record(from), to, 5_000)).toThrow(`illegal execution transition ${from} → ${to}`);
  });

  it("refuses staying in the same state, so nothing finishes twice", () => {
    for (const s of ALL) expect(() => transition(record(s), s, 5_000)).toThrow(IllegalTransition);
  });

  it("refuses skipping straight from queued to running or to succeeded", () => {
    expect(() => transition(record("queued"), "running", 1)).toThrow(IllegalTransition);
    expect(() => transition(record("queued"), "succeeded", 1)).toThrow(IllegalTransition);
    expect(() => transition(record("scheduled"), "succeeded", 1)).toThrow(IllegalTransition);
  });

  it("refuses skipping approval's decision: awaiting_approval cannot be scheduled or run", () => {
    expect(() => transition(record("awaiting_approval"), "scheduled", 1)).toThrow(IllegalTransition);
    expect(() => transition(record("awaiting_approval"), "running", 1)).toThrow(IllegalTransition);
  });

  it("refuses every backward move", () => {
    const rank = (s: ExecutionStatus) => Math.min(ALL.indexOf(s), 4);
    const backward = ALL.flatMap((from) => ALL.filter((to) => rank(to) < rank(from)).map((to) => [from, to] as const));
    expect(backward.length).toBeGreaterThan(0);
    for (const [from, to] of backward) expect(() => transition(record(from), to, 1)).toThrow(IllegalTransition);
  });
});

describe("isTerminal", () => {
  it.each(ALL)("knows whether %s is terminal", (s) => {
    expect(isTerminal(s)).toBe(TERMINAL.includes(s));
  });
});

describe("isWaiting (docs/contract.md#waiting)", () => {
  it("holds for the statuses where no provider has been called yet", () => {
    expect(ALL.filter(isWaiting)).toEqual(["awaiting_approval", "queued", "scheduled"]);
  });
});

describe("toView of a waiting execution (docs/contract.md#waiting)", () => {
  it("shows its place in line only while queued or scheduled", () => {
    expect(toView(record("queued"), [], 3).position).toBe(3);
    expect(toView(record("scheduled", { scheduled_at: 1_500 }), [], 1).position).toBe(1);
    expect(toView(record("running", { scheduled_at: 1_500, running_at: 1_600 }), [], 2).position).toBeUndefined();
    expect(toView(record("queued")).position).toBeUndefined();
  });

  it("counts queued_ms from acceptance to scheduling, whatever it waited for", () => {
    const view = toView(record("running", { accepted_at: 1_000, scheduled_at: 4_000, running_at: 4_010 }));
    expect(view.execution).toMatchObject({ queued_ms: 3_000, started_ms: 3_010 });
  });

  it("shows the approval: its rule, when it expires, and the decision once made", () => {
    const decision = {
      decision: "rejected" as const,
      approver: "alice",
      reason: "not today",
      at: "2026-12-01T00:00:00.000Z",
    };
    const pending = toView(record("awaiting_approval", { approval: { rule: "effect delete", expires_at: 61_000 } }));
    expect(pending.approval).toEqual({
      rule: "effect delete",
      expires_at: new Date(61_000).toISOString(),
      decision: null,
    });
    const decided = toView(
      record("failed", { ended_at: 5_000, approval: { rule: "tool lab.erase", expires_at: 61_000, decision } }),
    );
    expect(decided.approval?.decision).toEqual(decision);
  });
});
