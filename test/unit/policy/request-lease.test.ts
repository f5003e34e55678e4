import { describe, expect, it } from "vitest";
import type { RequestLeaseRequest } from "../../../src/policy/ledger.ts";
import { TenantLease, type Ticket } from "../../../src/policy/lease.ts";
import type { TenantLimits } from "../../../src/policy/limits.ts";
import { ledgerWorld } from "./ledger-world.ts";
import { RequestLease } from "../../../src/policy/request-lease.ts";

function world(limits: Partial<TenantLimits>, isolates: number) {
  return ledgerWorld(
    limits,
    isolates,
    (l, r: RequestLeaseRequest, now: number) => l.leaseRequests(r, now),
    (ask, now) => new RequestLease(ask, now),
  );
}

describe("RequestLease (every request counts against the tenant's rate)", () => {
  it("serves from the lease without asking the ledger while it holds tokens", async () => {
    const w = world({ requests_per_second: 400, burst: 800 }, 1);
    expect(await w.leases[0].take(1, w.limits, w.background)).toBeUndefined();
    await w.settle();
    const asked = w.asks.length;
    for (let i = 0; i < 20; i++) expect(await w.leases[0].take(1, w.limits, () => {})).toBeUndefined();
    expect(w.asks.length).toBe(asked);
  });

  it("holds the tenant to its burst and rate across isolates, and says when to retry", async () => {
    const w = world({ requests_per_second: 2, burst: 4 }, 3);
    const results = [];
    for (let i = 0; i < 9; i++) results.push(await w.leases[i % 3].take(1, w.limits, w.background));
    await w.settle();
    expect(results.filter((r) => r === undefined)).toHaveLength(4);
    const refusal = results.find((r) => r !== undefined);
    expect(refusal).toMatchObject({ ok: false, reason: "rate", limit: 2, retry_after_ms: 500 });
    w.advance(500);
    expect(await w.leases[0].take(1, w.limits, w.background)).toBeUndefined();
  });

  it("takes a batch's tokens all or none", async () => {
    const w = world({ requests_per_second: 1, burst: 3 }, 1);
    expect(await w.leases[0].take(5, w.limits, w.background)).toMatchObject({ ok: false, reason: "rate" });
    for (let i = 0; i < 3; i++) expect(await w.leases[0].take(1, w.limits, w.background)).toBeUndefined();
  });

  it("shares the tenant's bucket with calls: requests spend what calls then lack", async () => {
    const w = world({ requests_per_second: 1, burst: 3, tool_requests_per_second: 10, tool_burst: 10 }, 1);
    for (let i = 0; i < 3; i++) expect(await w.leases[0].take(1, w.limits, w.background)).toBeUndefined();
    const calls = new TenantLease(async (r) => w.ledger.lease(r, w.now()), w.now);
    const refused = await calls.admit("t", w.limits, w.background);
    expect(refused).toMatchObject({ ok: false, reason: "rate" });
    expect((refused as Ticket).release).toBeUndefined();
  });
});
