/** Approval policy (docs/contract.md#approvals): APPROVALS parsed once, a tenant's rule by name or family, what it holds. */
import { describe, expect, it } from "vitest";
import { approvalNeeded, approvalRuleFor, isApprover, parseApprovalsConfig } from "../../../src/policy/approvals.ts";

describe("approval policy", () => {
  it("holds nothing for anyone by default", () => {
    const config = parseApprovalsConfig(undefined);
    expect(approvalNeeded(approvalRuleFor(config, "acme"), "std.http.request", "send")).toBeNull();
  });

  it("holds by effect, or by naming the tool, per tenant or family (an exact name wins)", () => {
    const config = parseApprovalsConfig({
      tenants: { "approve-*": { effects: ["delete"], window_ms: 5_000 }, "approve-tools": { tools: ["http.request"] } },
    });
    const family = approvalRuleFor(config, "approve-123");
    expect(approvalNeeded(family, "lab.erase", "delete")).toBe("effect delete");
    expect(approvalNeeded(family, "lab.echo", "read")).toBeNull();
    expect(family.window_ms).toBe(5_000);
    const exact = approvalRuleFor(config, "approve-tools");
    expect(approvalNeeded(exact, "http.request", "send")).toBe("tool http.request");
    expect(approvalNeeded(exact, "lab.erase", "delete")).toBeNull();
    expect(exact.window_ms).toBe(3_600_000);
  });

  it("refuses a malformed APPROVALS when the configuration loads", () => {
    expect(() => parseApprovalsConfig({ tenants: { x: { effects: ["read"] } } })).toThrow(/effects/);
    expect(() => parseApprovalsConfig({ default: { window_ms: 0 } })).toThrow(/window_ms/);
    expect(() => parseApprovalsConfig({ tenants: { x: { toolz: [] } } })).toThrow(/toolz/);
    expect(() => parseApprovalsConfig({ other: {} })).toThrow(/other/);
  });

  it("knows an approver by its role, and only by it", () => {
    const caller = { tenant: "t", agent: "a", capabilities: [], channels: ["*"] };
    expect(isApprover({ ...caller, role: "approver" })).toBe(true);
    expect(isApprover({ ...caller, role: "admin" })).toBe(false);
    expect(isApprover({ ...caller, role: "tenant" })).toBe(false);
  });
});
