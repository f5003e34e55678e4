/** A tenant's open event streams (docs/contract.md#streaming): `max_streams` slots, leased, renewed, given back. */
import { describe, expect, it } from "vitest";
import { TenantLedger } from "../../../src/policy/ledger.ts";

describe("the tenant ledger's stream slots", () => {
  it("admits up to the limit, then refuses with reason streams", () => {
    const ledger = new TenantLedger();
    expect([1, 2, 3].map((i) => ledger.openStream(`s${i}`, 3, 90_000, 0).ok)).toEqual([true, true, true]);
    expect(ledger.openStream("s4", 3, 90_000, 0)).toMatchObject({ ok: false, reason: "streams", limit: 3 });
  });

  it("renews an open stream without taking a second slot, and frees one that closes", () => {
    const ledger = new TenantLedger();
    ledger.openStream("a", 2, 90_000, 0);
    ledger.openStream("b", 2, 90_000, 0);
    expect(ledger.openStream("a", 2, 90_000, 30_000).ok).toBe(true);
    expect(ledger.openStream("c", 2, 90_000, 30_000).ok).toBe(false);
    ledger.closeStream("b");
    expect(ledger.openStream("c", 2, 90_000, 30_000).ok).toBe(true);
  });

  it("lets a slot whose lease was not renewed lapse", () => {
    const ledger = new TenantLedger();
    ledger.openStream("gone", 1, 90_000, 0);
    expect(ledger.openStream("next", 1, 90_000, 89_999).ok).toBe(false);
    expect(ledger.openStream("next", 1, 90_000, 90_000).ok).toBe(true);
  });
});
