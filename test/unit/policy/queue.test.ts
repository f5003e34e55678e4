/**
 * The tenant's queue (docs/contract.md#waiting), in the pure ledger: past max_concurrent an execution that may
 * wait takes a place, first come first served, up to max_queued; a freed slot goes to the head;
 * while anything waits, isolates' leases get no new slots; a restored ledger keeps the order.
 */
import { describe, expect, it } from "vitest";
import { TenantLedger, type AdmitRequest, type QueuedExecution } from "../../../src/policy/ledger.ts";
import { DEFAULT_TENANT_LIMITS, type TenantLimits } from "../../../src/policy/limits.ts";

const limits = (l: Partial<TenantLimits> = {}): TenantLimits => ({
  ...DEFAULT_TENANT_LIMITS,
  max_concurrent: 2,
  max_queued: 3,
  ...l,
});
const request = (id: string, o: Partial<AdmitRequest> = {}): AdmitRequest => ({
  execution_id: id,
  tool: "lab.long",
  version: "1.0.0",
  mode: "async",
  project: null,
  accepted_at: 1_000,
  lease_ms: 60_000,
  limits: limits(),
  wait: true,
  ...o,
});
const ids = (grants: QueuedExecution[]) => grants.map((g) => g.execution_id);

describe("the tenant's queue", () => {
  it("runs max_concurrent at once and queues the rest in arrival order, with their positions", () => {
    const ledger = new TenantLedger();
    expect(ledger.admit(request("a"), 1)).toEqual({ ok: true });
    expect(ledger.admit(request("b"), 1)).toEqual({ ok: true });
    const c = ledger.admit(request("c"), 1);
    const d = ledger.admit(request("d"), 1);
    expect(c).toMatchObject({ ok: true, position: 1 });
    expect(d).toMatchObject({ ok: true, position: 2 });
    expect([
      ledger.position("a", 1),
      ledger.position("c", 1),
      ledger.position("d", 1),
      ledger.position("z", 1),
    ]).toEqual([0, 1, 2, undefined]);
  });

  it("hands each freed slot to the head of the queue, one at a time", () => {
    const ledger = new TenantLedger();
    for (const id of ["a", "b", "c", "d", "e"]) ledger.admit(request(id), 1);
    expect(ledger.takeGrants()).toEqual([]);
    ledger.release("a", 2);
    expect(ids(ledger.takeGrants())).toEqual(["c"]);
    expect(ledger.position("d", 2)).toBe(1);
    ledger.release("b", 3);
    ledger.release("c", 3);
    expect(ids(ledger.takeGrants())).toEqual(["d", "e"]);
    expect(ledger.running(3)).toBe(2);
  });

  it("refuses a call past max_queued with queue_full and a time to try again", () => {
    const ledger = new TenantLedger();
    for (const id of ["a", "b", "c", "d", "e"]) ledger.admit(request(id), 1);
    const refused = ledger.admit(request("f"), 1);
    expect(refused).toMatchObject({ ok: false, reason: "queue_full", limit: 3 });
    expect((refused as { retry_after_ms: number }).retry_after_ms).toBeGreaterThan(0);
  });

  it("refuses for concurrency, as before, a call that may not wait", () => {
    const ledger = new TenantLedger();
    ledger.admit(request("a"), 1);
    ledger.admit(request("b"), 1);
    expect(ledger.admit(request("c", { wait: false }), 1)).toMatchObject({ ok: false, reason: "concurrency" });
  });

  it("lets a waiting execution leave without moving anyone behind it out of order", () => {
    const ledger = new TenantLedger();
    for (const id of ["a", "b", "c", "d", "e"]) ledger.admit(request(id), 1);
    ledger.release("d", 2); // a cancel while queued
    expect([ledger.position("c", 2), ledger.position("e", 2)]).toEqual([1, 2]);
    expect(ledger.takeGrants()).toEqual([]);
    ledger.release("a", 3);
    expect(ids(ledger.takeGrants())).toEqual(["c"]);
  });

  it("hands a slot on when the holder's lease expires (a slot freed by a crash)", () => {
    const ledger = new TenantLedger();
    ledger.admit(request("a", { lease_ms: 100 }), 0);
    ledger.admit(request("b"), 0);
    ledger.admit(request("c"), 0);
    expect(ledger.position("c", 50)).toBe(1);
    expect(ledger.position("c", 100)).toBe(0);
    expect(ids(ledger.takeGrants())).toEqual(["c"]);
  });

  it("gives isolates' leases no new slot while anything waits, and takes back their spare ones", () => {
    const ledger = new TenantLedger();
    const l = limits({ max_concurrent: 8 });
    const lease = (o: { slots: number; in_use: number; need_slot: boolean }) =>
      ledger.lease({ lease_id: "iso", tool: "t", tokens: 1, give_back: 0, lease_ms: 10_000, limits: l, ...o }, 1);
    expect(lease({ slots: 4, in_use: 0, need_slot: true })).toMatchObject({ ok: true, slots: 4 });
    for (const id of ["a", "b", "c", "d"]) expect(ledger.admit(request(id, { limits: l }), 1)).toEqual({ ok: true });
    for (const id of ["e", "f", "g"])
      expect(ledger.admit(request(id, { limits: l }), 1)).toMatchObject({ ok: true, queued: { execution_id: id } });
    // A call at the edge wanting a slot is refused: the queue goes first.
    expect(lease({ slots: 4, in_use: 2, need_slot: true })).toMatchObject({ ok: false, reason: "concurrency" });
    // A top-up keeps only the slot in use; the spare ones go to the queue, in order.
    expect(lease({ slots: 3, in_use: 1, need_slot: false })).toMatchObject({ ok: true, slots: 1 });
    expect(ids(ledger.takeGrants())).toEqual(["e", "f", "g"]);
  });

  it("takes an approved call's slot without its tokens again (paid when it was accepted)", () => {
    const ledger = new TenantLedger();
    const l = limits({ requests_per_second: 1, burst: 1, tool_requests_per_second: 1, tool_burst: 1 });
    expect(ledger.accept({ tool: "lab.erase", limits: l }, 1)).toEqual({ ok: true });
    expect(ledger.accept({ tool: "lab.erase", limits: l }, 1)).toMatchObject({ ok: false, reason: "rate" });
    expect(ledger.admit(request("a", { limits: l, paid: true }), 1)).toEqual({ ok: true });
  });

  it("keeps the order and the unconfirmed grants across a restart", () => {
    const before = new TenantLedger();
    const queued: QueuedExecution[] = [];
    for (const id of ["a", "b", "c", "d", "e"]) {
      const r = before.admit(request(id), 1);
      if (r.ok && r.queued) queued.push(r.queued);
    }
    before.release("a", 2);
    const [granted] = before.takeGrants();
    // A new instance: slots are forgotten (in memory on purpose), the queue and the grant are stored.
    const after = new TenantLedger();
    after.restore(
      queued.filter((q) => q.execution_id !== granted.execution_id).reverse(),
      [granted],
      before.nextTicket,
      3,
    );
    expect(after.position("c", 3)).toBe(0);
    // With the running ones forgotten, the next in line is granted at once, in order.
    expect(ids(after.takeGrants())).toEqual(["d"]);
    expect(after.position("e", 3)).toBe(1);
    expect(after.admit(request("f"), 3)).toMatchObject({ ok: true, position: 2 });
    expect(after.nextTicket).toBeGreaterThan(Math.max(...queued.map((q) => q.ticket)));
  });

  it("lists waiting executions as queued beside the running ones", () => {
    const ledger = new TenantLedger();
    for (const [i, id] of ["a", "b", "c"].entries()) ledger.admit(request(id, { accepted_at: 1_000 + i }), 1);
    expect(ledger.live(1).map((e) => [e.execution_id, e.status])).toEqual([
      ["a", "running"],
      ["b", "running"],
      ["c", "queued"],
    ]);
  });
});
