/** A new instance of the execution object goes on from each state its storage can hold (src/execution/lifecycle.ts). */
import { describe, expect, it } from "vitest";
import { nextAlarm } from "../../../../src/execution/lifecycle-alarm.ts";
import { step } from "../../../../src/execution/lifecycle.ts";
import { transition } from "../../../../src/execution/record.ts";
import { ACCEPTED, ENDED_WAITING, claiming, drive, kinds, only, plan, queued } from "./steps.ts";

const NOW = ACCEPTED + 500;
const approvalPlan = plan({ approval: { rule: "effect delete", window_ms: 60_000 } });
const awaiting = () =>
  drive([
    { type: "start", plan: approvalPlan },
    { type: "approval asked", answer: { ok: true } },
  ]).state;

describe("restarted", () => {
  it("with nothing stored: nothing", () => {
    expect(step({}, { type: "restarted" }, NOW)).toEqual({ state: {}, effects: [] });
  });

  it("awaiting approval or queued: it waits on, with its plan, and its alarm as before", () => {
    for (const before of [awaiting(), queued().state]) {
      const { state, effects } = step({}, { type: "restarted", record: before.record, plan: before.plan }, NOW);
      expect(effects).toEqual([]);
      expect(state).toEqual({ record: before.record, plan: before.plan });
      expect(nextAlarm(state)).toBe(nextAlarm(before));
    }
  });

  it("scheduled (its slot was granted, or its provider was full): it takes room at its provider again", () => {
    const before = claiming().state;
    const { state, effects } = step({}, { type: "restarted", record: before.record, plan: before.plan }, NOW);
    expect(effects).toEqual([{ kind: "claim", plan: before.plan }]);
    expect(state.claiming).toEqual({ plan: before.plan });
  });

  it("waiting with its plan lost: it ends failed, never having run, and lets go of its wait", () => {
    const before = queued().state;
    const { state, effects } = step({}, { type: "restarted", record: before.record }, NOW);
    expect(state.record).toMatchObject({ status: "failed", error: { details: { reason: "plan missing" } } });
    expect(kinds(effects)).toEqual([...ENDED_WAITING]);
  });

  it("running: the instance that ran it is gone; it ends failed with the partial output its events made, and its slot goes on", () => {
    const p = plan();
    const record = transition(transition(queued(p).state.record!, "scheduled", NOW), "running", NOW, {
      start_seq: 2,
      last_seq: 2,
    });
    const { state, effects } = step(
      {},
      { type: "restarted", record, lost: { lastSeq: 5, partial: { counted: [3] } } },
      NOW,
    );
    expect(state.record).toMatchObject({
      status: "failed",
      last_seq: 5,
      partial_output: { counted: [3] },
      error: { code: "internal", details: { reason: "execution object restarted" } },
    });
    expect(kinds(effects)).toEqual(["save", "emit", "resolve enders", "set alarm", "send audit", "release slot"]);
    expect(only(effects, "emit")[0].event.seq).toBe(6);
  });

  it("ended: it stays as it is, its audit not known to be confirmed (the alarm set before stands)", () => {
    const ended = drive([{ type: "cancel", graceMs: 0 }], queued().state).state.record!;
    const { state, effects } = step({}, { type: "restarted", record: ended }, NOW);
    expect(effects).toEqual([]);
    expect(state).toEqual({ record: ended, audit: { confirmed: false } });
    expect(nextAlarm(state)).toBeUndefined();
    // Its alarm sends the record again.
    expect(kinds(step(state, { type: "alarm" }, NOW).effects)).toEqual(["send audit"]);
  });
});
