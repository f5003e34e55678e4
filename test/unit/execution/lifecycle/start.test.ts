/** The lifecycle from a start to the run (src/execution/lifecycle.ts): approval, admission, the claim, the run's records. */
import { describe, expect, it } from "vitest";
import { DEADLINE_SLACK_MS, nextAlarm } from "../../../../src/execution/lifecycle-alarm.ts";
import type { ExecutionRecord } from "../../../../src/execution/record.ts";
import { transition } from "../../../../src/execution/record.ts";
import { newRecord } from "../../../../src/execution/run-records.ts";
import { ACCEPTED, ENDED_WAITING, drive, kinds, only, permit, plan, queued } from "./steps.ts";

const running = (p = plan(), at = ACCEPTED): ExecutionRecord =>
  transition(transition(newRecord(p, at), "scheduled", at), "running", at, { start_seq: 1, last_seq: 1 });

describe("a start", () => {
  it("is admitted before anything is stored, then takes room and runs with the deadline alarm", () => {
    const p = plan();
    const admitting = drive([{ type: "start", plan: p }]);
    expect(admitting.effects).toEqual([{ kind: "admit", plan: p, wait: true, paid: undefined }]);
    expect(admitting.state.record).toBeUndefined();

    const claim = drive([{ type: "admitted", answer: { ok: true } }], admitting.state);
    expect(claim.effects).toEqual([{ kind: "claim", plan: p }]);

    const held = permit("exec_1:1");
    const ran = drive(
      [{ type: "claim answered", claim: { kind: "claimed", plan: p, permit: held } }],
      claim.state,
      ACCEPTED + 5,
    );
    expect(ran.effects).toEqual([
      { kind: "start run", plan: p, permit: held, now: ACCEPTED + 5 },
      { kind: "left line" },
      { kind: "set alarm", at: ACCEPTED + 5 + p.timeout_ms + DEADLINE_SLACK_MS },
      { kind: "settle", for: "start", settled: { ok: true } },
    ]);
    // The budget of a sync call counts from acceptance (docs/contract.md#budgets).
    const sync = plan({ mode: "sync" });
    const syncRun = drive([
      { type: "start", plan: sync },
      { type: "admitted", answer: { ok: true } },
      [{ type: "claim answered", claim: { kind: "claimed", plan: sync, permit: null } }, ACCEPTED + 5],
    ]);
    expect(nextAlarm(syncRun.state)).toBe(ACCEPTED + sync.timeout_ms + DEADLINE_SLACK_MS);
  });

  it("refused at admission leaves nothing and answers the refusal; a failed request is thrown to the caller", () => {
    const error = { code: "rate_limited", message: "full" } as never;
    const refused = drive([
      { type: "start", plan: plan() },
      { type: "admitted", answer: { ok: false, error } },
    ]);
    expect(refused.effects).toEqual([{ kind: "settle", for: "start", settled: { ok: false, error } }]);
    expect(refused.state).toEqual({});
    const thrown = new Error("tenant unreachable");
    const failed = drive([
      { type: "start", plan: plan() },
      { type: "admitted", answer: { ok: false, error, thrown } },
    ]);
    expect(only(failed.effects, "settle")[0].settled).toMatchObject({ ok: false, thrown });
  });

  it("queued by its tenant: the plan and the record are stored, the wait said, the alarm set to the wait's end", () => {
    const p = plan();
    const { state, effects } = queued(p);
    expect(kinds(effects)).toEqual(["save plan", "save", "placed", "save", "emit", "set alarm", "settle"]);
    expect(state.record).toMatchObject({ status: "queued", last_seq: 1 });
    expect(only(effects, "placed")[0].position).toBe(3);
    expect(only(effects, "emit")[0]).toMatchObject({
      store: true,
      event: { seq: 1, type: "log", data: { position: 3 } },
    });
    expect(only(effects, "set alarm")[0].at).toBe(ACCEPTED + 60_000);
  });

  it("a sync call with too little budget left is shed when it would take room: its slot goes back", () => {
    const p = plan({ mode: "sync", timeout_ms: 1_000 });
    const { effects, state } = drive([
      { type: "start", plan: p },
      [{ type: "admitted", answer: { ok: true } }, ACCEPTED + 950],
    ]);
    expect(kinds(effects)).toEqual(["release slot", "settle"]);
    expect(only(effects, "settle")[0].settled).toMatchObject({ ok: false, error: { code: "overloaded" } });
    expect(state.claiming).toBeUndefined();
  });

  it("finds every provider full: it waits, scheduled, at the provider's gate", () => {
    const p = plan();
    const { state, effects } = drive([
      { type: "start", plan: p },
      { type: "admitted", answer: { ok: true } },
      { type: "claim answered", claim: { kind: "full", provider: "lab", position: 2 } },
    ]);
    expect(state.record).toMatchObject({ status: "scheduled" });
    expect(state.plan).toBe(p);
    expect(only(effects, "emit")[0].event.data).toMatchObject({ waiting: "scheduled", provider: "lab", position: 2 });
    expect(kinds(effects).at(-1)).toBe("settle");
  });

  it("a claim that failed ends a call that waited, and answers the refusal", () => {
    const error = { code: "no_healthy_provider", message: "none" } as never;
    const { state, effects } = drive([{ type: "slot granted" }, { type: "claim answered", error }], queued().state);
    expect(state.record).toMatchObject({ status: "failed", error });
    expect(kinds(effects)).toEqual(["release slot", ...ENDED_WAITING]);
  });
});

describe("the run's records", () => {
  it("running: the start event goes out with the record; ended: the terminal event, the enders, the audit outbox", () => {
    const p = plan();
    const base = drive([
      { type: "start", plan: p },
      { type: "admitted", answer: { ok: true } },
      { type: "claim answered", claim: { kind: "claimed", plan: p, permit: null } },
    ]).state;
    const r = running(p);
    const started = drive([{ type: "run saved", record: r }], base);
    expect(kinds(started.effects)).toEqual(["save", "emit"]);
    expect(only(started.effects, "emit")[0].event.type).toBe("start");
    const end = transition(r, "succeeded", ACCEPTED + 10, { output: 1 });
    const saved = drive([{ type: "run saved", record: end }], started.state);
    expect(kinds(saved.effects)).toEqual(["save", "emit", "resolve enders"]);
    expect(only(saved.effects, "emit")[0].event).toMatchObject({ seq: 2, type: "done" });
    const done = drive([[{ type: "run ended", record: end }, ACCEPTED + 11]], saved.state);
    expect(done.effects).toEqual([
      { kind: "set alarm", at: ACCEPTED + 11 + 30_000 },
      { kind: "send audit", record: end, byAlarm: false },
    ]);
    expect(done.state.run).toBeUndefined();
  });
});
