/** The execution object's one alarm (src/execution/lifecycle-alarm.ts, src/execution/lifecycle.ts). */
import { describe, expect, it } from "vitest";
import { AUDIT_CONFIRM_MS, nextAlarm } from "../../../../src/execution/lifecycle-alarm.ts";
import type { Lifecycle } from "../../../../src/execution/lifecycle-types.ts";
import { ACCEPTED, drive, kinds, plan, queued } from "./steps.ts";

const ENDS = ACCEPTED + 60_000;

/** A queued call cancelled at ACCEPTED + 10, its finished record sent once. */
const finished = (retention_ms = 1_000): Lifecycle =>
  drive([[{ type: "cancel", graceMs: 0 }, ACCEPTED + 10]], queued(plan({ retention_ms })).state).state;

describe("the alarm", () => {
  it("early in a wait: set again to the wait's end; late: the wait ends, overloaded", () => {
    const s = queued().state;
    expect(drive([[{ type: "alarm" }, ENDS - 1]], s).effects).toEqual([{ kind: "set alarm", at: ENDS }]);
    const late = drive([[{ type: "alarm" }, ENDS + 5]], s);
    expect(late.state.record).toMatchObject({
      status: "failed",
      error: { code: "overloaded", details: { reason: "queue_wait" } },
    });
    expect(kinds(late.effects)).toContain("let go");
  });

  it("past an approval window: approval_expired", () => {
    const p = plan({ approval: { rule: "r", window_ms: 1_000 } });
    const s = drive([
      { type: "start", plan: p },
      { type: "approval asked", answer: { ok: true } },
    ]).state;
    expect(nextAlarm(s)).toBe(ACCEPTED + 1_000);
    const { state } = drive([[{ type: "alarm" }, ACCEPTED + 1_000]], s);
    expect(state.record?.error?.code).toBe("approval_expired");
  });

  it("while running: the run is ended as timed out, whenever it rings", () => {
    const s = queued().state;
    const running: Lifecycle = { record: { ...s.record!, status: "running" }, run: { deadline: ENDS } };
    expect(drive([[{ type: "alarm" }, ACCEPTED]], running).effects).toEqual([{ kind: "expire run" }]);
  });

  it("after the end: sent again until confirmed; a failed send rings again AUDIT_CONFIRM_MS later", () => {
    const s = finished();
    expect(nextAlarm(s)).toBe(ACCEPTED + 10 + AUDIT_CONFIRM_MS);
    const resend = drive([[{ type: "alarm" }, ACCEPTED + 40_000]], s);
    expect(resend.effects).toEqual([{ kind: "send audit", record: s.record, byAlarm: true }]);
    const failed = drive([[{ type: "audit answered", sent: false, byAlarm: true }, ACCEPTED + 40_001]], resend.state);
    expect(failed.effects).toEqual([{ kind: "set alarm", at: ACCEPTED + 40_001 + AUDIT_CONFIRM_MS }]);
    // A send at the end that failed leaves the alarm that was set at the end.
    expect(drive([{ type: "audit answered", sent: false, byAlarm: false }], s).effects).toEqual([]);
  });

  it("confirmed: the alarm moves to the end of retention; a second confirmation changes nothing", () => {
    const s = finished(86_400_000);
    const confirmed = drive([{ type: "audit answered", sent: true, byAlarm: false }], s);
    expect(confirmed.effects).toEqual([{ kind: "set alarm", at: ACCEPTED + 10 + 86_400_000 }]);
    expect(drive([{ type: "audit answered", sent: true, byAlarm: false }], confirmed.state).effects).toEqual([]);
  });

  it("confirmed by the alarm's own send, past retention: everything goes", () => {
    const s = finished(1_000);
    const { state, effects } = drive(
      [
        [{ type: "alarm" }, ACCEPTED + 2_000],
        [{ type: "audit answered", sent: true, byAlarm: true }, ACCEPTED + 2_000],
      ],
      s,
    );
    expect(effects).toEqual([{ kind: "delete" }]);
    expect(state).toEqual({});
  });

  it("at retention's end: early, it rings again then; late, everything goes and later events find nothing", () => {
    const confirmed = drive([{ type: "audit answered", sent: true, byAlarm: false }], finished(1_000)).state;
    expect(drive([[{ type: "alarm" }, ACCEPTED + 500]], confirmed).effects).toEqual([
      { kind: "set alarm", at: ACCEPTED + 1_010 },
    ]);
    const gone = drive([[{ type: "alarm" }, ACCEPTED + 1_010]], confirmed);
    expect(gone.effects).toEqual([{ kind: "delete" }]);
    expect(drive([{ type: "alarm" }, { type: "slot granted" }], gone.state).effects).toEqual([
      { kind: "reply", value: false },
    ]);
  });
});
