/**
 * The durable waiting line, pure: tickets stored in order, a grant stored before it is sent,
 * a failed delivery retried by the next alarm with a growing delay, a restart that restores the
 * line from storage, and a waiter that declines its grant.
 */
import { describe, expect, it } from "vitest";
import { TICKET_KEY, WaitingLine, type LineStorage, type Waiter } from "../../../src/policy/waiting-line.ts";

/** A Map behind the synchronous key-value interface a Durable Object's `ctx.storage.kv` has. */
function memoryStorage(): LineStorage & { map: Map<string, unknown> } {
  const map = new Map<string, unknown>();
  return {
    map,
    get: <T>(key: string) => map.get(key) as T | undefined,
    put: (key, value) => void map.set(key, structuredClone(value)),
    delete: (key) => map.delete(key),
    list: <T>({ prefix }: { prefix: string }) =>
      [...map.entries()]
        .filter(([k]) => k.startsWith(prefix))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]): [string, T] => [k, v as T]),
  };
}

type Entry = Waiter & { note: string };
const entry = (id: string, ticket: number): Entry => ({ execution_id: id, ticket, note: `n-${id}` });
const options = { prefix: "q:", keepTaken: false, retryMs: 2_000, maxRetryMs: 16_000 };
const ids = (xs: Waiter[]) => xs.map((x) => x.execution_id);

describe("WaitingLine", () => {
  it("stores each waiter under its padded ticket and the next ticket, and sends a grant once", () => {
    const kv = memoryStorage();
    const line = new WaitingLine<Entry>(kv, options);
    line.wait(entry("a", 1), 2);
    line.wait(entry("a", 1), 2); // the same waiter again changes nothing
    line.wait(entry("b", 2), 3);
    expect([...kv.map.keys()].filter((k) => k.startsWith("q:"))).toEqual(["q:000000000001", "q:000000000002"]);
    expect(kv.get(TICKET_KEY)).toBe(3);
    expect(line.due(0)).toEqual([]); // nobody was granted anything yet
    expect(line.nextAlarm(0)).toBe(2_000); // while anyone waits, the owner's alarm looks again

    line.grant(entry("a", 1));
    expect(kv.get("q:000000000001")).toMatchObject({ execution_id: "a", granting: true, note: "n-a" });
    expect(ids(line.due(10))).toEqual(["a"]);
    expect(line.due(10)).toEqual([]); // being sent: not sent twice
    line.answered("a", true);
    expect(kv.get("q:000000000001")).toBeUndefined(); // keepTaken off: forgotten once taken
    expect(line.has("a")).toBe(false);
    expect(ids(line.restore().waiting)).toEqual(["b"]);
  });

  it("tries a failed delivery again at the next alarm, doubling the delay up to its cap", () => {
    const line = new WaitingLine<Entry>(memoryStorage(), options);
    line.wait(entry("a", 1), 2);
    line.grant(entry("a", 1));
    let now = 1_000;
    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      expect(ids(line.due(now))).toEqual(["a"]);
      const at = line.failed("a", now);
      delays.push(at - now);
      expect(line.due(at - 1)).toEqual([]); // not before its time
      expect(line.nextAlarm(now)).toBe(at); // the alarm comes exactly then
      now = at;
    }
    expect(delays).toEqual([2_000, 4_000, 8_000, 16_000, 16_000]);
    expect(ids(line.due(now))).toEqual(["a"]);
    line.answered("a", true);
    expect(line.nextAlarm(now)).toBeUndefined();
    expect(line.unsettled).toBe(false);
  });

  it("restores the line after a restart: waiters in ticket order, grants due again, the next ticket", () => {
    const kv = memoryStorage();
    const before = new WaitingLine<Entry>(kv, { ...options, keepTaken: true });
    for (const [id, t] of [
      ["c", 12],
      ["a", 3],
      ["b", 7],
      ["d", 20],
    ] as const)
      before.wait(entry(id, t), t + 1);
    before.grant(entry("b", 7));
    before.grant(entry("d", 20));
    expect(ids(before.due(0))).toEqual(["b", "d"]);
    before.answered("d", true); // taken: kept stored while its slot is held
    before.failed("b", 0);

    const after = new WaitingLine<Entry>(kv, { ...options, keepTaken: true });
    const restored = after.restore();
    expect(ids(restored.waiting)).toEqual(["a", "c"]);
    expect(restored.waiting[0]).toEqual(entry("a", 3));
    expect(ids(restored.granted)).toEqual(["b", "d"]);
    expect(restored.nextTicket).toBe(21);
    // Memory of sends, answers and backoffs is gone: every grant is told again, at once.
    expect(ids(after.due(0))).toEqual(["b", "d"]);
    expect(after.size).toBe(4);
  });

  it("keeps a taken grant until the owner forgets it, when asked to", () => {
    const kv = memoryStorage();
    const line = new WaitingLine<Entry>(kv, { ...options, keepTaken: true });
    line.wait(entry("a", 1), 2);
    line.grant(entry("a", 1));
    line.due(0);
    line.answered("a", true);
    expect(line.due(100_000)).toEqual([]);
    expect(line.unsettled).toBe(false);
    expect(line.nextAlarm(0)).toBeUndefined();
    expect(kv.get("q:000000000001")).toMatchObject({ granting: true });
    line.forget("a");
    expect(kv.get("q:000000000001")).toBeUndefined();
    expect(line.size).toBe(0);
  });

  it("forgets a waiter that declines its grant, and the rest of the line stays", () => {
    for (const keepTaken of [false, true]) {
      const kv = memoryStorage();
      const line = new WaitingLine<Entry>(kv, { ...options, keepTaken });
      line.wait(entry("a", 1), 2);
      line.wait(entry("b", 2), 3);
      line.grant(entry("a", 1));
      expect(ids(line.due(0))).toEqual(["a"]);
      line.answered("a", false);
      expect(line.has("a")).toBe(false);
      expect(kv.get("q:000000000001")).toBeUndefined();
      expect(line.due(0)).toEqual([]);
      expect(ids(new WaitingLine<Entry>(kv, options).restore().waiting)).toEqual(["b"]);
    }
  });

  it("drops a waiter that leaves while its grant is on its way; its late answer changes nothing", () => {
    const kv = memoryStorage();
    const line = new WaitingLine<Entry>(kv, { ...options, keepTaken: true });
    line.wait(entry("a", 1), 2);
    line.grant(entry("a", 1));
    line.due(0);
    line.forget("a");
    line.answered("a", true);
    line.failed("a", 0);
    expect(line.size).toBe(0);
    expect(line.nextAlarm(0)).toBeUndefined();
    expect([...kv.map.keys()]).toEqual([TICKET_KEY]);
  });
});
