/**
 * Approval policy (docs/contract.md#approvals): a tenant may require a person's approval before a tool with
 * effects `write`, `delete` or `send` runs — by effect, or by naming the tool. Configured in
 * `APPROVALS` like TENANT_LIMITS: a default and per-tenant entries, where an entry ending in `*`
 * covers a family of tenants (src/policy/limits.ts `tenantEntry`):
 *
 *   APPROVALS = '{"tenants": {"acme": {"effects": ["delete", "send"], "tools": ["billing.refund"], "window_ms": 3600000}}}'
 *
 * The approver is a caller of the same tenant whose role is `approver` (an API key created with
 * role "approver", or a JWT whose `role` claim is "approver"); operators are not approvers, and
 * an approver of one tenant sees nothing of another's. An approver does not decide a call its
 * own agent made unless the tenant's rule says `"self_approval": true`.
 */
import type { Caller } from "../contract.ts";
import type { Effect } from "../../providers/sdk/protocol.ts";
import { tenantEntry } from "./limits.ts";

/** Effects that can be made to wait for a person (the destructive ones of docs/contract.md#capabilities). */
export const APPROVABLE_EFFECTS: readonly Effect[] = ["write", "delete", "send"];

export interface ApprovalRule {
  /** Every tool with one of these effects waits for approval. */
  effects: Effect[];
  /** These tools wait for approval whatever their effects (an operator who names a tool means it). */
  tools: string[];
  /** How long a person has to decide; then the execution fails with `approval_expired`. */
  window_ms: number;
  /** May an approver decide a call its own agent made? Off by default: approval means a second person. */
  self_approval: boolean;
}

export interface ApprovalsConfig {
  default: ApprovalRule;
  tenants: Record<string, Partial<ApprovalRule>>;
}

/** Nothing waits for approval unless configured; an hour to decide when something does. */
export const DEFAULT_APPROVAL_RULE: ApprovalRule = {
  effects: [],
  tools: [],
  window_ms: 3_600_000,
  self_approval: false,
};

/** A tenant's rule: the default overlaid with its own entry or its family's. */
export function approvalRuleFor(config: ApprovalsConfig, tenant: string): ApprovalRule {
  return { ...config.default, ...(tenantEntry(config.tenants, tenant) ?? {}) };
}

/** Why a call needs approval ("tool lab.erase", "effect delete"), or null when it does not. */
export function approvalNeeded(rule: ApprovalRule, tool: string, effects: Effect): string | null {
  if (rule.tools.includes(tool)) return `tool ${tool}`;
  if (rule.effects.includes(effects)) return `effect ${effects}`;
  return null;
}

/** May this caller approve or reject its tenant's calls? */
export function isApprover(caller: Caller): boolean {
  return caller.role === "approver";
}

/** Checks an APPROVALS value once, when the configuration is loaded, not on every request. */
export function parseApprovalsConfig(value: unknown): ApprovalsConfig {
  const raw = (value ?? {}) as { default?: unknown; tenants?: unknown };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new Error("APPROVALS must be an object");
  for (const key of Object.keys(raw))
    if (key !== "default" && key !== "tenants") throw new Error(`APPROVALS.${key} is not known (default, tenants)`);
  const tenants: Record<string, Partial<ApprovalRule>> = {};
  if (raw.tenants !== undefined) {
    if (raw.tenants === null || typeof raw.tenants !== "object" || Array.isArray(raw.tenants))
      throw new Error("APPROVALS.tenants must be an object");
    for (const [t, v] of Object.entries(raw.tenants)) tenants[t] = checkRule(v, `APPROVALS.tenants.${t}`);
  }
  return { default: { ...DEFAULT_APPROVAL_RULE, ...checkRule(raw.default, "APPROVALS.default") }, tenants };
}

function checkRule(v: unknown, where: string): Partial<ApprovalRule> {
  if (v === undefined) return {};
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${where} must be an object`);
  const out: Partial<ApprovalRule> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "effects") {
      if (!Array.isArray(x) || !x.every((e) => APPROVABLE_EFFECTS.includes(e)))
        throw new Error(`${where}.effects must list some of ${APPROVABLE_EFFECTS.join(", ")}`);
      out.effects = x;
    } else if (k === "tools") {
      if (!Array.isArray(x) || !x.every((t) => typeof t === "string" && t.length > 0))
        throw new Error(`${where}.tools must be a list of tool names`);
      out.tools = x;
    } else if (k === "window_ms") {
      if (typeof x !== "number" || !Number.isSafeInteger(x) || x <= 0)
        throw new Error(`${where}.window_ms must be a positive integer`);
      out.window_ms = x;
    } else if (k === "self_approval") {
      if (typeof x !== "boolean") throw new Error(`${where}.self_approval must be a boolean`);
      out.self_approval = x;
    } else {
      throw new Error(`${where}.${k} is not known (effects, tools, window_ms, self_approval)`);
    }
  }
  return out;
}
