import { describe, expect, it } from "vitest";
import { executionScope, inScope, parseRole, requireTenantAdmin, seesWholeTenant } from "../../../src/auth/roles.ts";
import { callerOfKey } from "../../../src/auth/api-keys.ts";
import { approvalRuleFor, parseApprovalsConfig } from "../../../src/policy/approvals.ts";
import { RuntimeError } from "../../../src/errors.ts";

const caller = (role?: string) => ({
  tenant: "acme",
  agent: "bot-1",
  capabilities: [],
  channels: ["*"],
  ...(role === undefined ? {} : { role }),
});

describe("roles inside a tenant", () => {
  it("reads the old name tenant, a missing role and anything unknown as agent, the least role", () => {
    expect(["tenant", undefined, "", "root", "ADMIN", 7].map(parseRole)).toEqual([
      "agent",
      "agent",
      "agent",
      "agent",
      "agent",
      "agent",
    ]);
    expect(["agent", "tenant_admin", "approver", "admin"].map(parseRole)).toEqual([
      "agent",
      "tenant_admin",
      "approver",
      "admin",
    ]);
    expect(
      callerOfKey({
        key_id: "k",
        tenant: "acme",
        agent: "ops",
        capabilities: [],
        channels: [],
        role: "tenant_admin",
        created_at: "",
      }).role,
    ).toBe("tenant_admin");
  });

  it("scopes an agent and an approver to their own executions, a tenant admin and an operator to the tenant", () => {
    expect(executionScope(caller())).toEqual({ tenant: "acme", agent: "bot-1" });
    expect(executionScope(caller("tenant"))).toEqual({ tenant: "acme", agent: "bot-1" });
    expect(executionScope(caller("approver"))).toEqual({ tenant: "acme", agent: "bot-1" });
    expect(executionScope(caller("tenant_admin"))).toEqual({ tenant: "acme", agent: null });
    expect(executionScope(caller("admin"))).toEqual({ tenant: "acme", agent: null });
  });

  it("puts a record in scope only for its tenant, and its agent unless the scope is the whole tenant", () => {
    const own = { tenant: "acme", agent: "bot-1" };
    const whole = { tenant: "acme", agent: null };
    expect(inScope(own, "acme", "bot-1")).toBe(true);
    expect(inScope(own, "acme", "bot-2")).toBe(false);
    expect(inScope(own, "acme", undefined)).toBe(false);
    expect(inScope(own, "other", "bot-1")).toBe(false);
    expect(inScope(whole, "acme", "bot-2")).toBe(true);
    expect(inScope(whole, "acme", null)).toBe(true);
    expect(inScope(whole, "other", "bot-2")).toBe(false);
  });

  it("refuses tenant-admin work to agents and approvers with a reason", () => {
    expect(seesWholeTenant(caller("tenant_admin"))).toBe(true);
    for (const role of [undefined, "tenant", "agent", "approver"]) {
      let thrown: unknown;
      try {
        requireTenantAdmin(caller(role), "setting an upstream token");
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(RuntimeError);
      expect((thrown as RuntimeError).toBody()).toMatchObject({
        code: "forbidden",
        details: { reason: "tenant_admin role required" },
      });
    }
    expect(() => requireTenantAdmin(caller("admin"), "x")).not.toThrow();
  });

  it("keeps self-approval off unless a tenant's APPROVALS rule turns it on, and checks its type", () => {
    const config = parseApprovalsConfig({ tenants: { "solo-*": { effects: ["delete"], self_approval: true } } });
    expect(approvalRuleFor(config, "acme").self_approval).toBe(false);
    expect(approvalRuleFor(config, "solo-1").self_approval).toBe(true);
    expect(() => parseApprovalsConfig({ default: { self_approval: "yes" } })).toThrow(/self_approval/);
  });
});
