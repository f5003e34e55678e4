/** Plans, permits and a driver for the lifecycle's unit tests (src/execution/lifecycle.ts). */
import type { ExecutionPlan } from "../../../../src/execution/execution-plan.ts";
import { step } from "../../../../src/execution/lifecycle.ts";
import type { Effect, Lifecycle, LifecycleEvent, Step } from "../../../../src/execution/lifecycle-types.ts";
import type { Permit } from "../../../../src/execution/provider-claim.ts";

export const ACCEPTED = 1_000_000;

/** A plan at one limited provider (async unless the test says otherwise), accepted at ACCEPTED. */
export function plan(overrides: Partial<ExecutionPlan> = {}): ExecutionPlan {
  return {
    execution_id: "exec_1",
    tenant: "t",
    agent: "maker",
    project: null,
    face: "rest",
    tool: "lab.echo",
    version: "1.0.0",
    mode: "async",
    providers: [{ provider: "lab", binding: "LAB", trial: false, max_concurrency: 1 }],
    input: {},
    context: {},
    timeout_ms: 10_000,
    accepted_at: ACCEPTED,
    output_hash: "",
    max_output_bytes: 1_000,
    idempotent: true,
    effects: "read",
    capability: {
      level1: { reachable: ["lab"] },
      level2: { verdict: "skipped", mode: "none", reason: "no verifier" },
      level3: { required: null, granted_by: null },
    },
    retention_ms: 86_400_000,
    params_hash: "0".repeat(64),
    trace: { trace_id: "1".repeat(32) } as ExecutionPlan["trace"],
    correlation_id: null,
    limits: { max_wait_ms: 60_000 } as ExecutionPlan["limits"],
    retry: {} as ExecutionPlan["retry"],
    attempt_cap_ms: 10_000,
    class_timeout_ms: 10_000,
    partial_merge: "replace",
    ...overrides,
  };
}

export const permit = (id: string, provider = "lab"): Permit => ({ provider, id, release: () => {} });

/** What a waiting execution that ends without running does (`endWaiting`), in order. */
export const ENDED_WAITING = ["let go", "drop plan", "save", "emit", "resolve enders", "set alarm", "send audit"];

/** Steps through `events` (each at its own time, or `now`), keeping every step's effects. */
export function drive(
  events: (LifecycleEvent | [LifecycleEvent, number])[],
  from: Lifecycle = {},
  now = ACCEPTED,
): Step & { steps: Step[] } {
  let state = from;
  const steps: Step[] = [];
  for (const e of events) {
    const [event, at] = Array.isArray(e) ? e : [e, now];
    const next = step(state, event, at);
    steps.push(next);
    state = next.state;
  }
  return { state, effects: steps.at(-1)?.effects ?? [], steps };
}

/** The kinds of effects, in order. */
export const kinds = (effects: Effect[]) => effects.map((e) => e.kind);

export function only<K extends Effect["kind"]>(effects: Effect[], kind: K): Extract<Effect, { kind: K }>[] {
  return effects.filter((e): e is Extract<Effect, { kind: K }> => e.kind === kind);
}

/** A plan that waits in its tenant's queue (started, admitted as queued at place 3). */
export const queued = (p = plan()) =>
  drive([
    { type: "start", plan: p },
    { type: "admitted", answer: { ok: true, queued: 3 } },
  ]);
/** A plan scheduled at a full provider after its slot was granted, with a claim under way. */
export const claiming = (p = plan()) => drive([{ type: "slot granted" }], queued(p).state);
