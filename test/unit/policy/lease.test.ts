import { describe, expect, it } from "vitest";
import type { LeaseRequest } from "../../../src/policy/ledger.ts";
import { TenantLedger } from "../../../src/policy/ledger.ts";
import { DEFAULT_TENANT_LIMITS } from "../../../src/policy/limits.ts";
import { IDLE_RETURN_MS, TenantLease, TOKEN_TTL_MS, type Ticket } from "../../../src/policy/lease.ts";
import type { TenantLimits } from "../../../src/policy/limits.ts";
import { ledgerWorld } from "./ledger-world.ts";

function world(limits: Partial<TenantLimits>, isolates: number) {
  return ledgerWorld(
    limits,
    isolates,
    (l, r: LeaseRequest, now: number) => l.lease(r, now),
    (ask, now) => new TenantLease(ask, now),
  );
}

const admitted = (t: Ticket | { ok: false }): t is Ticket => !("ok" in t);

describe("TenantLease (fast-path admission without a round trip per call)", () => {
  it("admits from the lease without asking the ledger while it holds tokens and slots", async () => {
    const w = world({ requests_per_second: 400, tool_requests_per_second: 400, burst: 800, tool_burst: 800 }, 1);
    const first = await w.leases[0].admit("t", w.limits, w.background);
    expect(admitted(first)).toBe(true);
    await w.settle(); // the background top-up after the first call
    const asked = w.asks.length;
    for (let i = 0; i < 20; i++) {
      const t = await w.leases[0].admit("t", w.limits, () => {});
      expect(admitted(t)).toBe(true);
      (t as Ticket).release();
    }
    expect(w.asks.length).toBe(asked);
  });

  it("never lets the tenant's calls in flight exceed max_concurrent, across isolates", async () => {
    const w = world({ max_concurrent: 3 }, 3);
    const tickets = [];
    for (let i = 0; i < 9; i++) tickets.push(await w.leases[i % 3].admit("t", w.limits, w.background));
    await w.settle();
    const held = tickets.filter(admitted);
    expect(held).toHaveLength(3);
    expect(tickets.filter((t) => !admitted(t))).toEqual(
      expect.arrayContaining([expect.objectContaining({ ok: false, reason: "concurrency" })]),
    );
    expect(w.ledger.running(w.now())).toBeLessThanOrEqual(3);
    // A released slot is available again, to any isolate.
    held[0].release();
    await w.settle();
    w.advance(100);
    await w.settle();
    expect(admitted(await w.leases[2].admit("t", w.limits, w.background))).toBe(true);
  });

  it("keeps the calls of any window of T within burst + rate × (T + TOKEN_TTL_MS), whatever the number of isolates", async () => {
    const rate = 20;
    const burst = 20;
    const w = world(
      { requests_per_second: rate, tool_requests_per_second: rate, burst, tool_burst: burst, max_concurrent: 10_000 },
      8,
    );
    const times: number[] = [];
    // Every isolate tries a call every 10 ms for 10 simulated seconds (background top-ups run
    // between steps; idle slot returns are left to real time and do not matter here).
    const tick = () => new Promise((r) => setImmediate(r));
    for (let step = 0; step < 1_000; step++) {
      for (const lease of w.leases) {
        const t = await lease.admit("t", w.limits, () => {});
        if (admitted(t)) {
          times.push(w.now());
          t.release();
        }
      }
      await tick();
      w.advance(10);
    }
    for (const windowMs of [1_000, 3_000]) {
      let most = 0;
      for (let i = 0, j = 0; i < times.length; i++) {
        while (times[i] - times[j] >= windowMs) j++;
        most = Math.max(most, i - j + 1);
      }
      expect(most).toBeLessThanOrEqual(burst + (rate * (windowMs + TOKEN_TTL_MS)) / 1000);
    }
    // And the tenant was not starved either: most of the rate was used.
    expect(times.length).toBeGreaterThan(rate * 10 * 0.5);
  });

  it("gives tokens it did not spend back to the tenant's buckets", async () => {
    const w = world({ requests_per_second: 1, tool_requests_per_second: 1, burst: 8, tool_burst: 8 }, 2);
    const first = await w.leases[0].admit("t", w.limits, w.background);
    expect(admitted(first)).toBe(true);
    (first as Ticket).release();
    await w.settle(); // a background top-up takes more of the burst into isolate 0
    w.advance(TOKEN_TTL_MS + 1);
    // Isolate 0's leftover tokens expired; its next request gives them back, and isolate 1 can use them.
    const again = await w.leases[0].admit("t", w.limits, w.background);
    expect(admitted(again)).toBe(true);
    const given = w.asks.filter((a) => a.give_back > 0);
    expect(given.length).toBeGreaterThan(0);
    const other = await w.leases[1].admit("t", w.limits, w.background);
    expect(admitted(other)).toBe(true);
  });

  it("charges an object-path call a token without taking a slot, and refuses beyond the rate", async () => {
    const w = world(
      { requests_per_second: 1, burst: 3, tool_requests_per_second: 1, tool_burst: 3, max_concurrent: 4 },
      1,
    );
    const refusals = [];
    for (let i = 0; i < 5; i++) refusals.push(await w.leases[0].spendToken("t", w.limits, w.background));
    await w.settle();
    expect(refusals.filter((r) => r === undefined)).toHaveLength(3);
    for (const r of refusals.slice(3)) expect(r).toMatchObject({ ok: false, reason: "rate", limit: 1 });
    // No slot was leased for it: the tenant's objects can still hold all four.
    expect(w.asks.every((a) => a.slots === 0 && !a.need_slot)).toBe(true);
    expect(w.ledger.running(w.now())).toBe(0);
    w.advance(1_000);
    expect(await w.leases[0].spendToken("t", w.limits, w.background)).toBeUndefined();
  });

  it("spends a token it already holds when it only needs a slot back: every token of the burst serves a call", async () => {
    // A per-tool burst of 2 that never refills within the test: the first call's background
    // top-up leases the second token, then the idle lease gives its slot back. The second call
    // needs a slot only, and must not be refused for the token the ledger no longer has.
    const w = world({ requests_per_second: 1000, burst: 1000, tool_requests_per_second: 0.001, tool_burst: 2 }, 1);
    const first = await w.leases[0].admit("t", w.limits, w.background);
    expect(admitted(first)).toBe(true);
    (first as Ticket).release();
    await w.settle();
    w.advance(IDLE_RETURN_MS + 1);
    await w.settle();
    expect(w.leases[0].slots).toBe(0);
    const second = await w.leases[0].admit("t", w.limits, w.background);
    expect(admitted(second)).toBe(true);
    (second as Ticket).release();
    const third = await w.leases[0].admit("t", w.limits, w.background);
    expect(third).toMatchObject({ ok: false, reason: "tool_rate" });
  });

  it("asks again, giving it back, when the token it held expires while the ledger answers", async () => {
    // The same burst of 2: the second call holds the top-up's token but no slot, and its ask for
    // a slot takes so long that the token expires meanwhile. It must not be refused (nor sent to
    // take a second token elsewhere) while the ledger's bucket holds the token it gives back.
    const limits = { ...DEFAULT_TENANT_LIMITS, tool_requests_per_second: 0.001, tool_burst: 2 };
    const ledger = new TenantLedger();
    let now = 1_000_000;
    let slowBy = 0;
    const lease = new TenantLease(
      async (r) => {
        const answer = ledger.lease(r, now);
        now += slowBy;
        return answer;
      },
      () => now,
    );
    const pending: Promise<unknown>[] = [];
    const background = (p: Promise<unknown>) => void pending.push(p);
    const settle = async () => {
      while (pending.length) await pending.shift();
    };
    const first = await lease.admit("t", limits, background);
    expect(admitted(first)).toBe(true);
    (first as Ticket).release();
    await settle();
    now += IDLE_RETURN_MS + 1;
    await settle();
    expect(lease.slots).toBe(0);
    now += TOKEN_TTL_MS - IDLE_RETURN_MS - 10; // the top-up's token is still good, for 9 ms
    slowBy = 20;
    const second = await lease.admit("t", limits, background);
    expect(admitted(second)).toBe(true);
    (second as Ticket).release();
    expect(await lease.admit("t", limits, background)).toMatchObject({ ok: false, reason: "tool_rate" });
  });
});
