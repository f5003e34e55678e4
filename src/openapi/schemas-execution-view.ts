/**
 * Component schemas of an execution as GET /v1/executions/{id} shows it (status, result or
 * error, attempts, capability decision, cancellation, what it cost) and of a person's approval
 * of a held call (docs/contract.md#approvals): its state, the pending list, the decision.
 */
import {
  all,
  anyJson,
  bool,
  EXECUTION_STATUSES,
  int,
  nullable,
  num,
  object,
  oneOfStrings,
  ref,
  str,
  strings,
  time,
} from "./schema-builders.ts";

/** docs/contract.md#cancellation (src/contract.ts CancellationOutcome). */
const CANCELLATION_OUTCOMES = ["before_start", "cooperative", "forced", "already_finished"];
const intent = all(
  {
    verdict: oneOfStrings(["skipped", "aligned", "misaligned", "pending"]),
    mode: oneOfStrings(["sync", "async", "none"]),
    reason: str,
    profile: str,
    cached: {
      ...bool,
      description:
        "The verdict came from the verifier's answer to an earlier call of the same agent and tool (read-only tools).",
    },
  },
  ["profile", "cached"],
);
const effects = oneOfStrings(["read", "write", "delete", "send"]);
/** A person's decision on a call that needed approval (docs/contract.md#approvals). */
const approvalDecision = all({
  decision: oneOfStrings(["approved", "rejected"]),
  approver: { ...str, description: "the approver's agent" },
  reason: nullable(str),
  at: time,
});

export const ExecutionBlock = all({
  sandbox: { type: "string", const: "v8-isolate" },
  worker: nullable(str),
  queued_ms: {
    ...nullable(num),
    description: "Accepted → scheduled: how long it waited (for approval, then for a slot of its tenant).",
  },
  started_ms: nullable(num),
  duration_ms: nullable(num),
  timeout_ms: num,
  resources: ref("ExecutionResources"),
});
export const ExecutionResources = {
  ...all({
    cpu_ms: {
      ...nullable(num),
      description:
        "CPU time of the provider Workers' invocations, summed over the attempts whose reports arrived (attempts[].cpu_ms); null until one with a measurement has.",
    },
    peak_memory_mb: { type: "null", description: "Workers reports no memory figure per invocation: always null." },
    cpu_report: {
      ...oneOfStrings(["none", "measured", "unmeasured"]),
      description:
        "none: no report has reached the record (yet: it follows the answer, usually within seconds when deployed; never when the provider Worker has no tail consumer or the platform dropped the event); measured: cpu_ms holds the reported CPU time; unmeasured: reports arrived without a measurement (wrangler dev reports 0 ms for every invocation).",
    },
  }),
  description:
    "What the provider Workers' invocations cost, as the platform reports it after each one ends (a Tail Worker event); written into the record after the fact, so a later GET may show more than the answer did.",
};
export const Attempt = all({
  attempt: int,
  provider: str,
  outcome: { ...str, description: '"succeeded" or the error code the attempt ended with' },
  started_ms: { ...num, description: "From acceptance to the attempt's start (the runtime's clock)." },
  duration_ms: {
    ...num,
    description: "The attempt's length as the runtime saw it: dispatch, the provider's work and the way back.",
  },
  provider_latency_ms: {
    ...nullable(num),
    description:
      "The provider's own latency for the attempt (latency_us, in ms), as the provider measured its handler; null when the provider gave no answer (timeout, failed Worker, abandoned, not bound).",
  },
  cpu_ms: {
    ...nullable(num),
    description:
      "CPU time of the provider Worker's invocation for the attempt, as the platform reported it after the fact; null until the report arrives, or when it carries no measurement (see ExecutionResources.cpu_report).",
  },
});
export const CapabilityDecision = all({
  level1: all({ reachable: strings }),
  level2: intent,
  level3: all({ required: nullable(str), granted_by: nullable(str) }),
});
export const Cancellation = all({
  requested_at: time,
  outcome: { type: ["string", "null"], enum: [...CANCELLATION_OUTCOMES, null] },
});
export const ExecutionView = all(
  {
    execution_id: ref("ExecutionId"),
    tool: str,
    version: str,
    status: oneOfStrings(EXECUTION_STATUSES),
    output: anyJson,
    partial_output: anyJson,
    error: ref("ErrorBody"),
    cancellation: ref("Cancellation"),
    capability: ref("CapabilityDecision"),
    attempts: { type: "array", items: ref("Attempt") },
    position: {
      type: "integer",
      minimum: 1,
      description: "While queued: its place in its tenant's queue; while scheduled: in its provider's (1 is next).",
    },
    approval: ref("ApprovalState"),
    execution: ref("ExecutionBlock"),
  },
  ["output", "partial_output", "error", "cancellation", "capability", "attempts", "position", "approval"],
);
export const ApprovalState = all({
  expires_at: { ...time, description: "When an undecided approval expires (approval_expired)." },
  rule: { ...str, description: 'The tenant\'s rule that matched, e.g. "effect delete" or "tool lab.erase".' },
  decision: { oneOf: [approvalDecision, { type: "null" }] },
});
export const ApprovalDecision = approvalDecision;
export const PendingApproval = all({
  execution_id: ref("ExecutionId"),
  tool: str,
  version: str,
  effects,
  agent: { ...str, description: "The agent that made the call." },
  project: nullable(str),
  rule: str,
  input: { ...anyJson, description: "The validated input when its JSON is at most 16 KiB; otherwise null." },
  input_bytes: int,
  accepted_at: time,
  expires_at: time,
});
export const ApprovalList = all({ approvals: { type: "array", items: ref("PendingApproval") } });
export const ApprovalRequest = object(
  { reason: { type: "string", maxLength: 1000, description: "Why (required to reject)." } },
  [],
);
/** A sync call that ran and did not succeed: the view with its error, at the error's status. */
export const FailedExecution = { allOf: [ref("ExecutionView")], required: ["error"] };
