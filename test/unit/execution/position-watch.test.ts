/** A waiting execution's place in line (docs/contract.md#waiting): when it is looked at, and when a change is said. */
import { describe, expect, it } from "vitest";
import {
  inLine,
  keepWatching,
  POSITION_POLL_MS,
  PositionWatch,
  worthTelling,
  type Watched,
} from "../../../src/execution/position-watch.ts";
import type { ExecutionRecord } from "../../../src/execution/record.ts";
import { executionRecord } from "../../fixtures/record.ts";

const watched = (status: ExecutionRecord["status"], o: Partial<Watched> = {}): Watched => ({
  record: executionRecord(status),
  subscribers: 1,
  running: false,
  ...o,
});

/** A watch over an execution the test changes, with its ticks run by hand (no timers). */
function harness(places: (number | undefined | Error)[]) {
  const state = { now: watched("queued") as Watched | undefined };
  const told: [string, number][] = [];
  const ticks: (() => void)[] = [];
  const delays: number[] = [];
  let looks = 0;
  const watch = new PositionWatch(
    {
      watched: () => state.now,
      look: async () => {
        const place = places[Math.min(looks++, places.length - 1)];
        if (place instanceof Error) throw place;
        return place;
      },
      tell: (status, position) => told.push([status, position]),
    },
    (tick, ms) => {
      ticks.push(tick);
      delays.push(ms);
    },
  );
  /** Runs the next scheduled look and lets it finish. */
  const tick = async () => {
    ticks.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { state, told, ticks, delays, watch, tick, looks: () => looks };
}

describe("position watch", () => {
  it("counts only the queued and scheduled waits as lines", () => {
    expect(inLine("queued")).toBe(true);
    expect(inLine("scheduled")).toBe(true);
    expect(inLine("awaiting_approval")).toBe(false);
    expect(inLine("running")).toBe(false);
    expect(inLine("succeeded")).toBe(false);
  });

  it("keeps watching only while someone follows an execution that still waits in line", () => {
    expect(keepWatching(watched("queued"))).toBe(true);
    expect(keepWatching(watched("scheduled"))).toBe(true);
    expect(keepWatching(undefined)).toBe(false);
    expect(keepWatching(watched("queued", { subscribers: 0 }))).toBe(false);
    expect(keepWatching(watched("queued", { running: true }))).toBe(false);
    expect(keepWatching(watched("awaiting_approval"))).toBe(false);
    expect(keepWatching(watched("cancelled"))).toBe(false);
  });

  it("tells a known place that changed, while the wait it was looked at in goes on", () => {
    const before = watched("queued");
    expect(worthTelling(2, 3, before, before)).toBe(true);
    expect(worthTelling(2, undefined, before, before)).toBe(true);
    expect(worthTelling(3, 3, before, before)).toBe(false);
    expect(worthTelling(undefined, 3, before, before)).toBe(false);
    expect(worthTelling(2, 3, before, { ...before, record: { ...before.record, status: "scheduled" } })).toBe(false);
    expect(worthTelling(2, 3, before, { ...before, running: true })).toBe(false);
    expect(worthTelling(2, 3, before, undefined)).toBe(false);
  });

  it("keeps the last known place when nobody answers, and forgets it once the wait is over", async () => {
    const h = harness([4, new Error("tenant object unreachable"), undefined]);
    h.watch.placed(5);
    expect(h.watch.position).toBe(5);
    expect(await h.watch.look(h.state.now!.record)).toBe(4);
    expect(await h.watch.look(h.state.now!.record)).toBe(4);
    expect(await h.watch.look(h.state.now!.record)).toBeUndefined();
    h.watch.placed(2);
    h.watch.left();
    expect(h.watch.position).toBeUndefined();
  });

  it("looks once a second while followed, says each change once, and stops when the wait ends", async () => {
    const h = harness([3, 3, 2, 1]);
    h.watch.placed(3);
    h.watch.watch();
    h.watch.watch(); // a second follower starts no second loop
    expect(h.ticks).toHaveLength(1);
    await h.tick(); // 3: as said when it was placed
    await h.tick(); // 3 again
    await h.tick(); // 2
    expect(h.told).toEqual([["queued", 2]]);
    expect(h.delays.every((ms) => ms === POSITION_POLL_MS)).toBe(true);
    h.state.now = { ...h.state.now!, running: true };
    await h.tick();
    expect(h.ticks).toHaveLength(0);
    expect(h.looks()).toBe(3);
    // Stopped: a new follower starts it again.
    h.state.now = watched("scheduled");
    h.watch.watch();
    await h.tick();
    expect(h.told).toEqual([
      ["queued", 2],
      ["scheduled", 1],
    ]);
  });

  it("stops without a subscriber, and does not say a place looked at in a wait that ended meanwhile", async () => {
    const h = harness([7]);
    h.watch.watch();
    h.state.now = watched("queued", { subscribers: 0 });
    await h.tick();
    expect(h.looks()).toBe(0);
    expect(h.ticks).toHaveLength(0);

    // The look is answered after the execution went on to its provider's line: that place is not said.
    const record = executionRecord("queued");
    let now: Watched = { record, subscribers: 1, running: false };
    const told: number[] = [];
    const ticks: (() => void)[] = [];
    const watch = new PositionWatch(
      {
        watched: () => now,
        look: async () => {
          now = { ...now, record: { ...record, status: "scheduled" } };
          return 7;
        },
        tell: (_status, position) => told.push(position),
      },
      (tick) => ticks.push(tick),
    );
    watch.watch();
    ticks.shift()!();
    for (let i = 0; i < 5; i++) await Promise.resolve();
    expect(told).toEqual([]);
    expect(ticks).toHaveLength(1);
    expect(watch.position).toBe(7);
  });
});
