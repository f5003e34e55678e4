/** Races the execution object meets, each a sequence of events (src/execution/lifecycle.ts). */
import { describe, expect, it } from "vitest";
import { currentBinding, keyedStep } from "../../../../src/execution/keyed-start.ts";
import type { Lifecycle } from "../../../../src/execution/lifecycle-types.ts";
import { ACCEPTED, ENDED_WAITING, claiming, drive, kinds, only, permit, plan, queued } from "./steps.ts";

describe("grants", () => {
  it("a slot granted to a queued call: stored as scheduled before it takes room; a second grant changes nothing", () => {
    const p = plan();
    const first = drive([{ type: "slot granted" }], queued(p).state);
    expect(kinds(first.effects)).toEqual(["save", "claim", "reply"]);
    expect(first.state.record).toMatchObject({ status: "scheduled" });
    // Granted again (the tenant's object retries an unconfirmed grant): the call is no longer queued.
    const again = drive([{ type: "slot granted" }], first.state);
    expect(again.effects).toEqual([{ kind: "reply", value: true }]);
  });

  it("a slot granted while a claim is under way starts no second claim", () => {
    const s = claiming().state;
    const queuedAgain: Lifecycle = { ...s, record: { ...s.record!, status: "queued" } };
    expect(kinds(drive([{ type: "slot granted" }], queuedAgain).effects)).toEqual(["reply"]);
  });

  it("a permit granted while a claim is under way waits; the claim found no room, so it claims again with that permit", () => {
    const p = plan();
    const late = permit("exec_1:1");
    const granted = drive([{ type: "permit granted", permit: late }], claiming(p).state);
    expect(granted.effects).toEqual([{ kind: "reply", value: true }]);
    expect(granted.state.claiming?.late).toBe(late);
    const again = drive(
      [{ type: "claim answered", claim: { kind: "full", provider: "lab", position: 1 } }],
      granted.state,
    );
    expect(again.effects).toEqual([{ kind: "claim", plan: p, permit: late }]);
    expect(again.state.claiming).toEqual({ plan: p });
  });

  it("a permit granted while a claim is under way that found room elsewhere goes back", () => {
    const p = plan();
    const late = permit("exec_1:1", "lab");
    const other = permit("exec_1:1", "backup");
    const granted = drive([{ type: "permit granted", permit: late }], claiming(p).state);
    const ran = drive(
      [{ type: "claim answered", claim: { kind: "claimed", plan: p, permit: { ...other, id: "x" } } }],
      granted.state,
    );
    expect(only(ran.effects, "release permit")).toEqual([{ kind: "release permit", permit: late }]);
    expect(kinds(ran.effects)).toContain("start run");
    // The same permit the claim came back with is not given back.
    const same = drive([{ type: "claim answered", claim: { kind: "claimed", plan: p, permit: late } }], granted.state);
    expect(only(same.effects, "release permit")).toEqual([]);
  });

  it("a permit granted with no claim under way takes room with it; one granted to a call that no longer waits is declined", () => {
    const p = plan();
    const waiting = drive(
      [{ type: "claim answered", claim: { kind: "full", provider: "lab" } }],
      claiming(p).state,
    ).state;
    const got = permit("exec_1:1");
    expect(drive([{ type: "permit granted", permit: got }], waiting).effects).toEqual([
      { kind: "claim", plan: p, permit: got },
      { kind: "reply", value: true },
    ]);
    expect(drive([{ type: "permit granted", permit: got }], queued().state).effects).toEqual([
      { kind: "reply", value: false },
    ]);
    expect(drive([{ type: "permit granted", permit: got }], { ...waiting, run: { deadline: 1 } }).effects).toEqual([
      { kind: "reply", value: false },
    ]);
  });
});

describe("a cancel", () => {
  it("while queued: it ends at once, before_start, lets go of its place, and its enders get the record", () => {
    const { state, effects } = drive([[{ type: "cancel", graceMs: 1_000 }, ACCEPTED + 7]], queued().state);
    expect(state.record).toMatchObject({ status: "cancelled", cancellation: { outcome: "before_start" } });
    expect(kinds(effects)).toEqual([...ENDED_WAITING]);
    expect(only(effects, "let go")[0].was.status).toBe("queued");
    expect(state.plan).toBeUndefined();
  });

  it("while a claim is under way: it ends; the room the claim then took goes back and nothing runs", () => {
    const p = plan({ providers: [{ provider: "lab", binding: "LAB", trial: true, max_concurrency: 1 }] });
    const held = permit("exec_1:1");
    const { state, effects, steps } = drive(
      [
        { type: "cancel", graceMs: 0 },
        { type: "claim answered", claim: { kind: "claimed", plan: p, permit: held } },
      ],
      claiming(p).state,
    );
    expect(only(steps[0].effects, "let go")[0].was.status).toBe("scheduled");
    expect(effects).toEqual([
      { kind: "release permit", permit: held },
      { kind: "abandon trial", plan: p },
    ]);
    expect(state.record?.status).toBe("cancelled");
  });

  it("while running: the run is cancelled (it ends the record itself)", () => {
    const s = claiming().state;
    const running: Lifecycle = { record: { ...s.record!, status: "running" }, run: { deadline: 1 } };
    expect(drive([{ type: "cancel", graceMs: 250 }], running).effects).toEqual([{ kind: "cancel run", graceMs: 250 }]);
  });

  it("of a finished execution changes nothing", () => {
    const ended = drive([{ type: "cancel", graceMs: 0 }], queued().state).state;
    expect(drive([{ type: "cancel", graceMs: 0 }], ended).effects).toEqual([]);
  });

  it("while the approved call is being admitted: the admission's answer changes nothing, and the decision is answered", () => {
    const p = plan({ approval: { rule: "effect delete", window_ms: 60_000 } });
    const decision = {
      decision: "approved" as const,
      approver: "boss",
      reason: null,
      at: new Date(ACCEPTED + 1).toISOString(),
    };
    const { effects, state } = drive([
      { type: "start", plan: p },
      { type: "approval asked", answer: { ok: true } },
      { type: "decided", decision, selfApproval: false },
      { type: "cancel", graceMs: 0 },
      { type: "admitted", answer: { ok: true } },
    ]);
    expect(effects).toEqual([{ kind: "settle", for: "decide", settled: { ok: true } }]);
    expect(state.record?.status).toBe("cancelled");
  });
});

describe("the place in line", () => {
  it("a new place is said in a log event numbered after the record's last, while it waits; once it runs, not", () => {
    const s = queued().state;
    const data = { message: "position 1", waiting: "queued", position: 1 };
    const told = drive([{ type: "told position", data }], s);
    expect(told.state.record?.last_seq).toBe(2);
    expect(only(told.effects, "emit")[0]).toMatchObject({ store: true, event: { seq: 2, type: "log", data } });
    const ended = drive([{ type: "cancel", graceMs: 0 }], s).state;
    expect(drive([{ type: "told position", data }], ended).effects).toEqual([]);
  });
});

describe("keyed duplicates", () => {
  it("a second start while the first is being admitted or is taking room asks nothing again: it waits for the first", () => {
    const p = plan();
    const admitting = drive([{ type: "start", plan: p }]).state;
    const again = drive([{ type: "start", plan: p }], admitting);
    expect(again.effects).toEqual([]);
    expect(again.state).toEqual(admitting);
    const claimingRoom = drive([{ type: "admitted", answer: { ok: true } }], admitting).state;
    expect(drive([{ type: "start", plan: p }], claimingRoom).effects).toEqual([]);
    // One settle, for every caller waiting on the start.
    const ran = drive([{ type: "claim answered", claim: { kind: "claimed", plan: p, permit: null } }], claimingRoom);
    expect(only(ran.effects, "settle")).toHaveLength(1);
  });

  it("a duplicate of a keyed call that waits replays it here; another request under the key conflicts; past the TTL and ended, a new id", () => {
    const p = plan({ idempotency: { key: "k", fingerprint: "f1", ttl_ms: 60_000 } });
    const record = queued(p).state.record!;
    expect(record.idempotency).toEqual({ key: "k", fingerprint: "f1", expires_at: ACCEPTED + 60_000 });
    const binding = currentBinding(undefined, record);
    expect(keyedStep(binding, "f1", record, ACCEPTED + 1)).toEqual({
      kind: "replay",
      execution_id: p.execution_id,
      here: true,
    });
    expect(keyedStep(binding, "f2", record, ACCEPTED + 1)).toEqual({ kind: "conflict", execution_id: p.execution_id });
    // Past the TTL, still waiting: the key holds while its execution has not ended.
    expect(keyedStep(binding, "f1", record, ACCEPTED + 61_000).kind).toBe("replay");
    const ended = drive([{ type: "cancel", graceMs: 0 }], queued(p).state).state.record!;
    expect(keyedStep(currentBinding(undefined, ended), "f1", ended, ACCEPTED + 61_000)).toEqual({
      kind: "new",
      here: false,
    });
  });
});
