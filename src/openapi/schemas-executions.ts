/**
 * Component schemas of a call: the execution request, the error envelope every refusal and
 * failure answers with (its codes are the error table's, src/errors.ts), what a call answers
 * at once (accepted, a dry run's decision, stream events) and the list of executions.
 */
import { ERROR_TABLE } from "../errors.ts";
import {
  all,
  anyJson,
  bool,
  BREAKER,
  EXECUTION_STATUSES,
  freeObject,
  int,
  nullable,
  num,
  object,
  oneOfStrings,
  ref,
  str,
  time,
  TRUST,
} from "./schema-builders.ts";
import { deprecation } from "./schemas-tools.ts";

/** docs/contract.md#streaming: what a provider emits, then the one terminal event. */
const EMITTED_EVENT_TYPES = ["stdout", "stderr", "progress", "partial", "log"];
const ERROR_TYPES = ["request_error", "auth_error", "registry_error", "execution_error", "runtime_error"];
const violation = all({
  path: { ...str, description: "JSON Pointer into the input (empty: the whole input)" },
  message: str,
  keyword: str,
});
export const mode = oneOfStrings(["sync", "async"]);

export const ExecutionId = {
  type: "string",
  pattern: "^exec_([0-9a-f]{64}|e[0-9a-f]{44})$",
  description:
    "exec_<64 hex>: an execution with its own object (async, streamed, keyed); exec_e<44 hex>: a sync call that ran at the edge.",
};
export const ErrorBody = all(
  {
    code: {
      type: "string",
      enum: Object.keys(ERROR_TABLE),
      description: "From the error table (README, src/errors.ts).",
    },
    message: str,
    type: oneOfStrings(ERROR_TYPES),
    retryable: {
      ...bool,
      description:
        "Whether sending the same request again may succeed and is safe. timeout and provider_crashed say true only for tools declared idempotent: the provider may have run (a timeout stops the waiting, not the provider's code), so a second call could repeat an effect; the runtime has already retried idempotent tools within the budget. tool_error carries what the tool said.",
    },
    details: {
      ...freeObject,
      properties: {
        tool_code: {
          ...str,
          description: "With tool_error: the tool's own error code, from its manifest's error_codes.",
        },
        ref: {
          ...str,
          description: "With provider_crashed and internal: a reference into the log, where the full text is.",
        },
      },
    },
  },
  ["details"],
);
export const ErrorEnvelope = all({ error: ref("ErrorBody") });
export const ExecutionRequest = all(
  {
    tool: str,
    version: str,
    provider: { ...str, description: "Only this provider; no fall-back." },
    tenant: { ...str, description: "May only repeat the credential's tenant." },
    project: str,
    input: {
      ...anyJson,
      description:
        "The tool's arguments. Left out: `{}` (refused as invalid_input when the tool's input schema does not accept it).",
    },
    context: freeObject,
    limits: object(
      { timeout_ms: { type: "integer", minimum: 1 }, max_output_bytes: { type: "integer", minimum: 1 } },
      [],
    ),
    mode: { type: "string", enum: ["sync", "async", "dry_run"], description: "sync when left out" },
    stream: { ...bool, description: "false when left out" },
    idempotency_key: { type: "string", minLength: 1, maxLength: 255 },
  },
  ["version", "provider", "tenant", "project", "input", "context", "limits", "mode", "stream", "idempotency_key"],
);
export const CancelRequest = object(
  { grace_ms: { type: "integer", minimum: 0, description: "0 stops waiting at once; at most MAX_CANCEL_GRACE_MS." } },
  [],
);
export const Accepted = all({ execution_id: str, status: oneOfStrings(EXECUTION_STATUSES) });
export const DryRun = all({
  mode: { type: "string", const: "dry_run" },
  tool: str,
  version: str,
  provider: { ...nullable(str), description: "The provider that would serve; null when none could." },
  ranking: {
    type: "array",
    items: all({
      place: int,
      provider: str,
      trust: oneOfStrings(TRUST),
      p50_ms: nullable(num),
      error_rate: nullable(num),
      breaker: oneOfStrings(BREAKER),
      reason: str,
      max_concurrency: { ...nullable(int), description: "The provider's limit of calls at once (null: none)." },
      in_flight: { ...nullable(int), description: "Its calls in flight now (null when it has no limit)." },
      room: { ...bool, description: "Whether a call could be sent to it now." },
    }),
  },
  waits_for_capacity: {
    ...bool,
    description: "Every provider that could serve is full: the call would wait in scheduled for `provider`.",
  },
  approval: {
    oneOf: [all({ rule: str, window_ms: int }), { type: "null" }],
    description: "The tenant's rule that would hold the call for a person's approval.",
  },
  excluded: { type: "array", items: all({ provider: str, reason: str, retry_at: nullable(time) }) },
  capability: all(
    {
      allowed: bool,
      decision: ref("CapabilityDecision"),
      denial: all({ level: { type: ["integer", "null"] }, reason: str, required: nullable(str) }, [
        "level",
        "required",
      ]),
    },
    ["decision", "denial"],
  ),
  schema: all({ valid: bool, violations: { type: "array", items: violation } }),
  deprecation: { oneOf: [deprecation, { type: "null" }] },
});
export const StreamEvent = all({
  seq: { type: "integer", minimum: 1, description: "Also the SSE id: resume with Last-Event-ID." },
  type: oneOfStrings(["start", ...EMITTED_EVENT_TYPES, "done", "error"]),
  at: time,
  data: {
    ...anyJson,
    description:
      "start: {sandbox, worker}; done: {output, execution}; error: {status, error, partial_output?, cancellation?, execution}; others: what the tool emitted.",
  },
});
export const ExecutionList = all({
  executions: {
    type: "array",
    items: all({
      execution_id: str,
      tool: str,
      version: str,
      provider: nullable(str),
      project: nullable(str),
      mode,
      status: oneOfStrings(EXECUTION_STATUSES),
      error_code: nullable(str),
      accepted_at: time,
      ended_at: nullable(time),
    }),
  },
  next_cursor: nullable(str),
});
