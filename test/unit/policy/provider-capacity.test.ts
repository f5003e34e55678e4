/**
 * A provider's capacity, pure: never more permits out than max_concurrency, a line fair between
 * tenants (first come first served within one), each tenant's share of the line, the line
 * before anyone who will not wait, leases that come back by themselves, and a restart that
 * keeps permits and order.
 */
import { describe, expect, it } from "vitest";
import { MIN_TENANT_SLOTS, ProviderCapacity, QUEUE_SLOTS, tenantShare } from "../../../src/policy/provider-capacity.ts";

const ask = (id: string, o: { wait?: boolean; limit?: number; lease_ms?: number; tenant?: string } = {}) => ({
  permit_id: `${id}:1`,
  execution_id: id,
  tenant: o.tenant ?? "t",
  limit: o.limit ?? 1,
  lease_ms: o.lease_ms ?? 60_000,
  wait: o.wait ?? true,
});

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
    after.restore(
      before.permits(),
      [
        { execution_id: "c", permit_id: "c:1", ticket: 3, lease_ms: 60_000 },
        { execution_id: "b", permit_id: "b:1", ticket: 2, lease_ms: 60_000 },
      ],
      before.nextTicket,
      1,
      1,
    );
    expect(after.inFlight(1)).toBe(1);
    expect(after.acquire(ask("d", { wait: false }), 1)).toEqual({ ok: false });
    after.release("a:1", 2);
    expect(after.takeGrants().map((g) => g.execution_id)).toEqual(["b"]);
  });

  it("hands a freed permit to the waiting tenant holding fewest, though another tenant waits with ten calls", () => {
    const gate = new ProviderCapacity();
    expect(gate.acquire(ask("a0", { tenant: "A", limit: 2 }), 0)).toEqual({ ok: true });
    expect(gate.acquire(ask("a1", { tenant: "A", limit: 2 }), 0)).toEqual({ ok: true });
    for (let i = 2; i < 12; i++) gate.acquire(ask(`a${i}`, { tenant: "A", limit: 2 }), 0);
    expect(gate.acquire(ask("b0", { tenant: "B", limit: 2 }), 0)).toEqual({ ok: false, position: 1 });
    expect(gate.position("a2")).toBe(2);
    gate.release("a0:1", 1);
    expect(gate.takeGrants().map((g) => g.execution_id)).toEqual(["b0"]);
    expect(gate.position("a2")).toBe(1);
  });

  it("takes turns between tenants when one permit at a time comes free", () => {
    const gate = new ProviderCapacity();
    gate.acquire(ask("x", { tenant: "C" }), 0);
    for (let i = 0; i < 3; i++) gate.acquire(ask(`a${i}`, { tenant: "A" }), 0);
    for (let i = 0; i < 3; i++) gate.acquire(ask(`b${i}`, { tenant: "B" }), 0);
    const order: string[] = [];
    let holder = "x";
    for (let t = 1; t <= 6; t++) {
      gate.release(`${holder}:1`, t);
      holder = gate.takeGrants()[0].execution_id;
      order.push(holder);
    }
    // A came first, then each freed permit alternates: B is never behind more than one of A's.
    expect(order).toEqual(["a0", "b0", "a1", "b1", "a2", "b2"]);
  });

  it("caps one tenant's places in line at its share, and shares the line as tenants arrive", () => {
    expect(tenantShare(1)).toBe(QUEUE_SLOTS);
    expect(tenantShare(2)).toBe(QUEUE_SLOTS / 2);
    expect(tenantShare(1_000)).toBe(MIN_TENANT_SLOTS);
    const gate = new ProviderCapacity();
    gate.acquire(ask("held", { tenant: "A" }), 0);
    for (let i = 0; i < QUEUE_SLOTS; i++) expect(gate.acquire(ask(`a${i}`, { tenant: "A" }), 0).ok).toBe(false);
    expect(gate.acquire(ask("a-over", { tenant: "A" }), 0)).toEqual({
      ok: false,
      reason: "queue_share",
      limit: QUEUE_SLOTS,
    });
    // B still gets a place, and goes first when the permit comes free (A holds the one out).
    expect(gate.acquire(ask("b0", { tenant: "B" }), 0)).toEqual({ ok: false, position: 1 });
    // A, past its share of two, takes no more places; it keeps the ones it has.
    expect(gate.acquire(ask("a-more", { tenant: "A" }), 0)).toEqual({
      ok: false,
      reason: "queue_share",
      limit: QUEUE_SLOTS / 2,
    });
    expect(gate.waiting).toBe(QUEUE_SLOTS + 1);
    gate.release("held:1", 1);
    expect(gate.takeGrants().map((g) => g.execution_id)).toEqual(["b0"]);
  });
});
