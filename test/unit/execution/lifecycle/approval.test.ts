/** A call that waits for a person, in the lifecycle (src/execution/lifecycle.ts). */
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../../../../src/contract.ts";
import { ACCEPTED, ENDED_WAITING, drive, kinds, only, plan } from "./steps.ts";

const p = plan({ approval: { rule: "effect delete", window_ms: 60_000 } });
const decision = (d: Partial<ApprovalDecision> = {}): ApprovalDecision => ({
  decision: "approved",
  approver: "boss",
  reason: null,
  at: new Date(ACCEPTED + 100).toISOString(),
  ...d,
});
const awaiting = () =>
  drive([
    { type: "start", plan: p },
    { type: "approval asked", answer: { ok: true } },
  ]);

describe("approval", () => {
  it("asks its tenant first; held: plan and record stored, the request said, the alarm at the window's end", () => {
    const asked = drive([{ type: "start", plan: p }]);
    expect(asked.effects).toEqual([{ kind: "ask approval", plan: p, expires: ACCEPTED + 60_000 }]);
    const { state, effects } = awaiting();
    expect(state.record).toMatchObject({ status: "awaiting_approval", approval: { expires_at: ACCEPTED + 60_000 } });
    expect(kinds(effects)).toEqual(["save plan", "save", "save", "emit", "set alarm", "settle"]);
    expect(only(effects, "emit")[0].event.data).toMatchObject({ approval: "requested" });
  });

  it("refused by its tenant (no tokens, too many pending): nothing stored, the refusal answered", () => {
    const error = { code: "rate_limited", message: "no" } as never;
    const { state, effects } = drive([
      { type: "start", plan: p },
      { type: "approval asked", answer: { ok: false, error } },
    ]);
    expect(state).toEqual({});
    expect(effects).toEqual([{ kind: "settle", for: "start", settled: { ok: false, error } }]);
  });

  it("approved: queued, said, and admitted without a new token", () => {
    const { state, effects } = drive(
      [{ type: "decided", decision: decision(), selfApproval: false }],
      awaiting().state,
    );
    expect(state.record).toMatchObject({ status: "queued", approval: { decision: { decision: "approved" } } });
    expect(kinds(effects)).toEqual(["approval done", "save", "save", "emit", "admit"]);
    expect(only(effects, "admit")[0]).toMatchObject({ paid: true, wait: true });
    expect(state.asking).toMatchObject({ what: "admission", for: "decide" });
  });

  it("approved, then granted a slot at once: scheduled and taking room, the decision answered", () => {
    const approved = drive([{ type: "decided", decision: decision(), selfApproval: false }], awaiting().state).state;
    const { state, effects } = drive([{ type: "admitted", answer: { ok: true } }], approved);
    expect(state.record?.status).toBe("scheduled");
    expect(kinds(effects)).toEqual(["save", "claim"]);
    expect(state.claiming?.for).toBe("decide");
  });

  it("approved but refused at admission: it ends with the refusal, having never run", () => {
    const approved = drive([{ type: "decided", decision: decision(), selfApproval: false }], awaiting().state).state;
    const error = { code: "overloaded", message: "x" } as never;
    const { state, effects } = drive([{ type: "admitted", answer: { ok: false, error } }], approved);
    expect(state.record).toMatchObject({ status: "failed", error });
    expect(kinds(effects).at(-1)).toBe("settle");
  });

  it("rejected: it ends failed (approval_rejected) and lets go of its place among the pending approvals", () => {
    const rejected = decision({ decision: "rejected", reason: "no" });
    const { state, effects } = drive([{ type: "decided", decision: rejected, selfApproval: false }], awaiting().state);
    expect(state.record).toMatchObject({ status: "failed", error: { code: "approval_rejected" } });
    expect(kinds(effects)).toEqual(["approval done", ...ENDED_WAITING, "settle"]);
  });

  it("by the call's own agent (four eyes), or twice: refused, nothing changes", () => {
    const s = awaiting().state;
    const own = drive([{ type: "decided", decision: decision({ approver: "maker" }), selfApproval: false }], s);
    // Refused to the call that brought it only: a decision still being admitted is answered as its own chain settles.
    expect(own.effects).toEqual([{ kind: "refuse", error: expect.objectContaining({ code: "forbidden" }) }]);
    expect(own.state).toEqual(s);
    const twice = drive(
      [
        { type: "decided", decision: decision(), selfApproval: false },
        { type: "decided", decision: decision(), selfApproval: false },
      ],
      s,
    );
    expect(twice.effects).toEqual([
      { kind: "refuse", error: expect.objectContaining({ code: "approval_not_pending" }) },
    ]);
  });
});
