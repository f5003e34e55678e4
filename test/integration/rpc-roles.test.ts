/**
 * The privilege matrix on the Workers RPC face (src/rpc.ts): every method of the ToolRuntime
 * entrypoint × the roles a binding's `props` can name (agent, tenant_admin, approver) × the
 * caller's own execution, another agent's of its tenant, and another tenant's. The bindings are
 * the runtime's own entrypoint with props (`exports.ToolRuntime({ props })`), as a caller
 * Worker's service binding carries them. A method of the entrypoint without a row fails the
 * test, so a new method cannot be missed. (REST, MessagePack, Connect and MCP tasks:
 * test/e2e/privilege-matrix.test.ts.)
 */
import { exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolRuntime, type RpcProps } from "../../src/rpc.ts";

type Who = "agent" | "otherAgent" | "tenantAdmin" | "approver" | "stranger";
const T = `rpc-roles-${crypto.randomUUID().slice(0, 8)}`;
const U = `rpc-roles-${crypto.randomUUID().slice(0, 8)}`;
const PROPS: Record<Who, RpcProps> = {
  agent: { tenant: T, agent: "bot-a", channels: ["*"] },
  otherAgent: { tenant: T, agent: "bot-b", channels: ["*"] },
  tenantAdmin: { tenant: T, agent: "ops", channels: ["*"], role: "tenant_admin" },
  approver: { tenant: T, agent: "judge", channels: ["*"], role: "approver" },
  stranger: { tenant: U, agent: "bot-x", channels: ["*"] },
};
const WHO = Object.keys(PROPS) as Who[];
const ROOMY = { limits: { timeout_ms: 60_000 } };
const LONG = { from: 600, interval_ms: 200 };

function binding(who: Who): ToolRuntime {
  return (exports.ToolRuntime as unknown as (o: { props: RpcProps }) => ToolRuntime)({ props: PROPS[who] });
}

/** What one method call came to: allowed, or refused with its error code (and a 403's reason). */
type Verdict = { ok: true; value?: any } | { ok: false; code: string; reason?: string };
type Expect = "allow" | { code: string; reason?: string };

async function verdict(
  p: Promise<{ ok: boolean; value?: unknown; error?: { code: string; details?: Record<string, unknown> } }>,
): Promise<Verdict> {
  const r = await p;
  return r.ok
    ? { ok: true, value: r.value }
    : {
        ok: false,
        code: r.error!.code,
        ...(typeof r.error!.details?.reason === "string" ? { reason: r.error!.details.reason } : {}),
      };
}

const runs = {} as Record<"A" | "X", string>;

beforeAll(async () => {
  for (const [name, who] of [
    ["A", "agent"],
    ["X", "stranger"],
  ] as const) {
    const started = await binding(who).start("demo.countdown", LONG, ROOMY);
    if (!started.ok) throw new Error(`could not start run ${name}: ${JSON.stringify(started.error)}`);
    runs[name] = started.value.execution_id;
  }
}, 60_000);

afterAll(async () => {
  // Whatever is still running ends now (the tenant admin and the stranger own them).
  await binding("tenantAdmin").cancel(runs.A, { grace_ms: 0 });
  await binding("stranger").cancel(runs.X, { grace_ms: 0 });
});

const NOT_FOUND = { code: "execution_not_found" };
const APPROVERS_ONLY = { code: "forbidden", reason: "approver role required" };

/** Every method's cells: [who, on what, the call, the expectation]. Phase 2 rows change state and run last. */
type Cell = { who: Who; on: string; run: () => Promise<Verdict>; expect: Expect; phase?: 2 };
const ROWS: Record<string, () => Cell[]> = {
  invoke: () =>
    WHO.map((who) => ({
      who,
      on: "a tool in its channels",
      run: () => verdict(binding(who).invoke("math.evaluate", { expression: "1 + 1" }, ROOMY)),
      expect: "allow" as const,
    })),
  start: () =>
    WHO.map((who) => ({
      who,
      on: "a tool in its channels",
      run: () => verdict(binding(who).start("math.evaluate", { expression: "2 + 2" }, ROOMY)),
      expect: "allow" as const,
    })),
  invokeStream: () =>
    WHO.map((who) => ({
      who,
      on: "a tool in its channels",
      run: async () => {
        const r = await binding(who).invokeStream("demo.countdown", { from: 1, interval_ms: 0 }, ROOMY);
        if (r.ok) await new Response(r.value.stream).text();
        return verdict(Promise.resolve(r));
      },
      expect: "allow" as const,
    })),
  listTools: () =>
    WHO.map((who) => ({
      who,
      on: "its channels",
      run: () => verdict(binding(who).listTools()),
      expect: "allow" as const,
    })),
  getExecution: () => [
    { who: "agent", on: "own run", run: () => verdict(binding("agent").getExecution(runs.A)), expect: "allow" },
    {
      who: "otherAgent",
      on: "another agent's run",
      run: () => verdict(binding("otherAgent").getExecution(runs.A)),
      expect: NOT_FOUND,
    },
    {
      who: "approver",
      on: "a run that needed no approval",
      run: () => verdict(binding("approver").getExecution(runs.A)),
      expect: NOT_FOUND,
    },
    {
      who: "tenantAdmin",
      on: "an agent's run of its tenant",
      run: () => verdict(binding("tenantAdmin").getExecution(runs.A)),
      expect: "allow",
    },
    {
      who: "stranger",
      on: "another tenant's run",
      run: () => verdict(binding("stranger").getExecution(runs.A)),
      expect: NOT_FOUND,
    },
    {
      who: "tenantAdmin",
      on: "another tenant's run",
      run: () => verdict(binding("tenantAdmin").getExecution(runs.X)),
      expect: NOT_FOUND,
    },
  ],
  cancel: () => [
    {
      who: "otherAgent",
      on: "another agent's run",
      run: () => verdict(binding("otherAgent").cancel(runs.A, { grace_ms: 0 })),
      expect: NOT_FOUND,
    },
    {
      who: "approver",
      on: "another agent's run",
      run: () => verdict(binding("approver").cancel(runs.A, { grace_ms: 0 })),
      expect: NOT_FOUND,
    },
    {
      who: "stranger",
      on: "another tenant's run",
      run: () => verdict(binding("stranger").cancel(runs.A, { grace_ms: 0 })),
      expect: NOT_FOUND,
    },
    {
      who: "tenantAdmin",
      on: "another tenant's run",
      run: () => verdict(binding("tenantAdmin").cancel(runs.X, { grace_ms: 0 })),
      expect: NOT_FOUND,
    },
    {
      who: "tenantAdmin",
      on: "an agent's run of its tenant",
      run: () => verdict(binding("tenantAdmin").cancel(runs.A, { grace_ms: 0 })),
      expect: "allow",
      phase: 2,
    },
  ],
  approve: () => [
    ...(["agent", "otherAgent", "tenantAdmin", "stranger"] as const).map((who) => ({
      who,
      on: "a run of its tenant",
      run: () => verdict(binding(who).approve(runs.A)),
      expect: APPROVERS_ONLY,
    })),
    {
      who: "approver",
      on: "a run that awaits no approval",
      run: () => verdict(binding("approver").approve(runs.A)),
      expect: { code: "approval_not_pending" },
    },
    {
      who: "approver",
      on: "another tenant's run",
      run: () => verdict(binding("approver").approve(runs.X)),
      expect: NOT_FOUND,
    },
  ],
  reject: () => [
    ...(["agent", "otherAgent", "tenantAdmin", "stranger"] as const).map((who) => ({
      who,
      on: "a run of its tenant",
      run: () => verdict(binding(who).reject(runs.A, { reason: "no" })),
      expect: APPROVERS_ONLY,
    })),
    {
      who: "approver",
      on: "another tenant's run",
      run: () => verdict(binding("approver").reject(runs.X, { reason: "no" })),
      expect: NOT_FOUND,
    },
  ],
  listApprovals: () => [
    ...(["agent", "otherAgent", "tenantAdmin", "stranger"] as const).map((who) => ({
      who,
      on: "its tenant",
      run: () => verdict(binding(who).listApprovals()),
      expect: APPROVERS_ONLY,
    })),
    { who: "approver", on: "its tenant", run: () => verdict(binding("approver").listApprovals()), expect: "allow" },
  ],
};

function judge(cell: Cell, v: Verdict): string | null {
  if (cell.expect === "allow") return v.ok ? null : `refused ${v.code} ${v.reason ?? ""}`;
  if (v.ok) return `allowed, expected ${cell.expect.code}`;
  if (v.code !== cell.expect.code) return `${v.code}, expected ${cell.expect.code}`;
  if (cell.expect.reason !== undefined && v.reason !== cell.expect.reason)
    return `reason ${JSON.stringify(v.reason)}, expected ${JSON.stringify(cell.expect.reason)}`;
  return null;
}

describe("the privilege matrix over Workers RPC", () => {
  it("has a row for every method of the ToolRuntime entrypoint", () => {
    const methods = Object.getOwnPropertyNames(ToolRuntime.prototype).filter((m) => m !== "constructor");
    expect(Object.keys(ROWS).sort()).toEqual(methods.sort());
  });

  it("allows nothing it should not, and refuses with the right code; refusals change nothing", async () => {
    const cells = Object.values(ROWS).flatMap((row) => row());
    const wrong: string[] = [];
    for (const phase of [undefined, 2] as const) {
      for (const cell of cells.filter((c) => c.phase === phase)) {
        const problem = judge(cell, await cell.run());
        if (problem) wrong.push(`${cell.who} ${cell.on}: ${problem}`);
      }
      if (phase === undefined) {
        // After every refusal: both runs still run.
        for (const [run, owner] of [
          ["A", "agent"],
          ["X", "stranger"],
        ] as const) {
          const view = await binding(owner).getExecution(runs[run]);
          if (!view.ok || view.value.status !== "running")
            wrong.push(`after the refusals, run ${run} is ${view.ok ? view.value.status : view.error.code}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    const ended = await binding("agent").getExecution(runs.A);
    expect(ended).toMatchObject({ ok: true, value: { status: "cancelled" } });
  }, 120_000);

  it("answers a tool outside the binding's channels exactly like an unknown tool", async () => {
    const narrow = (exports.ToolRuntime as unknown as (o: { props: RpcProps }) => ToolRuntime)({
      props: { tenant: T, agent: "narrow", channels: ["community"] },
    });
    const hidden = await narrow.invoke("math.evaluate", { expression: "1" }, ROOMY);
    const unknown = await narrow.invoke("no.such-tool", {}, ROOMY);
    expect(hidden).toMatchObject({ ok: false, error: { code: "tool_not_found" } });
    expect(unknown).toMatchObject({ ok: false, error: { code: "tool_not_found" } });
    const tools = await narrow.listTools();
    expect(tools.ok && tools.value.some((t) => t.name === "math.evaluate")).toBe(false);
  });
});
