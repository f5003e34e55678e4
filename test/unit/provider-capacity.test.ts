/**
 * A provider's capacity (issue 15), pure: never more permits out than max_concurrency, first
 * come first served among those that wait, the queue before anyone who will not wait, leases
 * that come back by themselves, and a restart that keeps permits and order.
 */
import { describe, expect, it } from "vitest";
import { ProviderCapacity } from "../../src/policy/provider-capacity.ts";

const ask = (id: string, o: { wait?: boolean; limit?: number; lease_ms?: number } = {}) => ({ permit_id: `${id}:1`, execution_id: id, limit: o.limit ?? 1, lease_ms: o.lease_ms ?? 60_000, wait: o.wait ?? true });

describe("ProviderCapacity", () => {
  it("never has more permits out than its limit, under any interleaving of 20 callers", () => {
    const gate = new ProviderCapacity();
    let out = 0;
    let most = 0;
    const holders: string[] = [];
    for (let i = 0; i < 20; i++) {
      if (gate.acquire(ask(`e${i}`), i).ok) holders.push(`e${i}`);
    }
    for (let t = 100; holders.length > 0; t++) {
      out = gate.inFlight(t);
      most = Math.max(most, out);
      gate.release(`${holders.shift()}:1`, t);
      for (const g of gate.takeGrants()) holders.push(g.execution_id);
    }
    expect(most).toBe(1);
    expect(gate.waiting).toBe(0);
  });

  it("grants waiters in the order they came", () => {
    const gate = new ProviderCapacity();
    expect(gate.acquire(ask("a"), 0)).toEqual({ ok: true });
    expect(gate.acquire(ask("b"), 0)).toEqual({ ok: false, position: 1 });
    expect(gate.acquire(ask("c"), 0)).toEqual({ ok: false, position: 2 });
    gate.release("a:1", 1);
    expect(gate.takeGrants().map((g) => g.execution_id)).toEqual(["b"]);
    expect(gate.position("c")).toBe(1);
  });

  it("refuses a caller that will not wait while others wait, even with a permit free", () => {
    const gate = new ProviderCapacity();
    gate.acquire(ask("a", { limit: 2 }), 0);
    gate.acquire(ask("b", { limit: 1 }), 0); // the limit came down to 1: b waits
    expect(gate.acquire(ask("c", { limit: 2, wait: false }), 0)).toEqual({ ok: false });
  });

  it("takes back a permit whose lease ended and hands it on", () => {
    const gate = new ProviderCapacity();
    gate.acquire(ask("a", { lease_ms: 10 }), 0);
    gate.acquire(ask("b"), 0);
    expect(gate.inFlight(10)).toBe(1);
    expect(gate.takeGrants().map((g) => g.execution_id)).toEqual(["b"]);
  });

  it("lets a waiter leave (cancelled) without granting it", () => {
    const gate = new ProviderCapacity();
    gate.acquire(ask("a"), 0);
    gate.acquire(ask("b"), 0);
    gate.acquire(ask("c"), 0);
    gate.leave("b", 1);
    gate.release("a:1", 2);
    expect(gate.takeGrants().map((g) => g.execution_id)).toEqual(["c"]);
  });

  it("answers the same permit twice and keeps one place per waiter", () => {
    const gate = new ProviderCapacity();
    expect(gate.acquire(ask("a"), 0)).toEqual({ ok: true });
    expect(gate.acquire(ask("a"), 0)).toEqual({ ok: true });
    gate.acquire(ask("b"), 0);
    expect(gate.acquire(ask("b"), 0)).toEqual({ ok: false, position: 1 });
    expect(gate.waiting).toBe(1);
  });

  it("keeps permits out and the order of waiters across a restart", () => {
    const before = new ProviderCapacity();
    before.acquire(ask("a"), 0);
    before.acquire(ask("b"), 0);
    before.acquire(ask("c"), 0);
    const after = new ProviderCapacity();
    after.restore(before.permits(), [{ execution_id: "c", permit_id: "c:1", ticket: 3, lease_ms: 60_000 }, { execution_id: "b", permit_id: "b:1", ticket: 2, lease_ms: 60_000 }], before.nextTicket, 1, 1);
    expect(after.inFlight(1)).toBe(1);
    expect(after.acquire(ask("d", { wait: false }), 1)).toEqual({ ok: false });
    after.release("a:1", 2);
    expect(after.takeGrants().map((g) => g.execution_id)).toEqual(["b"]);
  });
});
