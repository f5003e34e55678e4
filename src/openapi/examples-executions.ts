/**
 * Examples of the calls and their executions (src/openapi/paths-callers.ts): the requests of
 * each mode, a finished, a cancelled and a held execution, and approvals.
 */
import { AT, CAPABILITY, EXEC, EXEC_EDGE, LATER, type OperationExamples, RESOURCES, v } from "./examples-shared.ts";

export const succeeded = {
  execution_id: EXEC_EDGE,
  tool: "math.evaluate",
  version: "1.0.0",
  status: "succeeded",
  output: { value: 42 },
  capability: CAPABILITY,
  attempts: [
    {
      attempt: 1,
      provider: "std",
      outcome: "succeeded",
      started_ms: 2.1,
      duration_ms: 3.4,
      provider_latency_ms: 0.6,
      cpu_ms: 1.8,
    },
  ],
  execution: {
    sandbox: "v8-isolate",
    worker: "std",
    queued_ms: 0,
    started_ms: 2.1,
    duration_ms: 3.4,
    timeout_ms: 5000,
    resources: RESOURCES,
  },
};
const waiting = {
  execution_id: EXEC,
  tool: "lab.erase",
  version: "1.0.0",
  status: "awaiting_approval",
  approval: { expires_at: "2026-12-01T15:06:05.123Z", rule: "effect delete", decision: null },
  execution: {
    sandbox: "v8-isolate",
    worker: null,
    queued_ms: null,
    started_ms: null,
    duration_ms: null,
    timeout_ms: 10000,
    resources: { cpu_ms: null, peak_memory_mb: null, cpu_report: "none" },
  },
};
const approved = {
  ...waiting,
  status: "running",
  approval: {
    ...waiting.approval,
    decision: { decision: "approved", approver: "alice", reason: "ticket 42", at: LATER },
  },
};
const rejected = {
  ...waiting,
  status: "failed",
  error: {
    code: "approval_rejected",
    message: "the call was rejected by alice: wrong thing",
    type: "execution_error",
    retryable: false,
    details: { approver: "alice", reason: "wrong thing" },
  },
  approval: {
    ...waiting.approval,
    decision: { decision: "rejected", approver: "alice", reason: "wrong thing", at: LATER },
  },
};
const cancelled = {
  execution_id: EXEC,
  tool: "demo.countdown",
  version: "1.0.0",
  status: "cancelled",
  partial_output: { counted: [10, 9, 8] },
  error: { code: "cancelled", message: "the execution was cancelled", type: "execution_error", retryable: false },
  cancellation: { requested_at: "2026-12-01T15:04:06.000Z", outcome: "cooperative" },
  attempts: [
    {
      attempt: 1,
      provider: "std",
      outcome: "cancelled",
      started_ms: 4.2,
      duration_ms: 612.5,
      provider_latency_ms: 608.9,
      cpu_ms: null,
    },
  ],
  execution: {
    sandbox: "v8-isolate",
    worker: "std",
    queued_ms: 1.1,
    started_ms: 4.2,
    duration_ms: 612.5,
    timeout_ms: 30000,
    resources: { cpu_ms: null, peak_memory_mb: null, cpu_report: "none" },
  },
};

export const executionExamples: Record<string, OperationExamples> = {
  createExecution: {
    request: {
      named: {
        sync: {
          summary: "Run a tool and wait for its result",
          value: { tool: "math.evaluate", input: { expression: "6 * 7" }, limits: { timeout_ms: 5000 } },
        },
        async: {
          summary: "Start a long tool and return at once, retried safely by its key",
          value: {
            tool: "demo.countdown",
            input: { from: 10, interval_ms: 100 },
            mode: "async",
            idempotency_key: "order-1042-countdown",
          },
        },
        dry_run: {
          summary: "Ask which provider would serve, without running anything",
          value: { tool: "math.evaluate", input: { expression: "6 * 7" }, mode: "dry_run" },
        },
      },
    },
    responses: {
      "200": {
        named: {
          sync: { summary: "A sync call that succeeded", value: succeeded },
          dry_run: {
            summary: "A dry run's decision",
            value: {
              mode: "dry_run",
              tool: "math.evaluate",
              version: "1.0.0",
              provider: "std",
              ranking: [
                {
                  place: 1,
                  provider: "std",
                  trust: "system",
                  p50_ms: 3.2,
                  error_rate: 0,
                  breaker: "closed",
                  reason: "highest trust, healthy",
                  max_concurrency: null,
                  in_flight: null,
                  room: true,
                },
              ],
              waits_for_capacity: false,
              approval: null,
              excluded: [],
              capability: { allowed: true, decision: CAPABILITY },
              schema: { valid: true, violations: [] },
              deprecation: null,
            },
          },
        },
      },
      "202": v({ execution_id: EXEC, status: "running" }),
    },
  },
  listExecutions: {
    responses: {
      "200": v({
        executions: [
          {
            execution_id: EXEC,
            tool: "demo.countdown",
            version: "1.0.0",
            provider: "std",
            project: "onboarding",
            mode: "async",
            status: "cancelled",
            error_code: "cancelled",
            accepted_at: AT,
            ended_at: "2026-12-01T15:04:06.020Z",
          },
          {
            execution_id: EXEC_EDGE,
            tool: "math.evaluate",
            version: "1.0.0",
            provider: "std",
            project: null,
            mode: "sync",
            status: "succeeded",
            error_code: null,
            accepted_at: "2026-12-01T15:03:59.870Z",
            ended_at: "2026-12-01T15:03:59.876Z",
          },
        ],
        next_cursor: "eyJhdCI6MTc2NDYwMTQzOTg3MH0",
      }),
    },
  },
  getExecution: { responses: { "200": v(succeeded) } },
  streamExecution: {
    responses: {
      "200": v({
        seq: 3,
        type: "progress",
        at: AT,
        data: { progress: 3, total: 10, percent: 30, message: "counted 3 of 10" },
      }),
    },
  },
  cancelExecution: { request: v({ grace_ms: 2000 }), responses: { "200": v(cancelled) } },
  approveExecution: {
    request: v({ reason: "ticket 42: the customer asked for it" }),
    responses: { "200": v(approved) },
  },
  rejectExecution: { request: v({ reason: "wrong thing" }), responses: { "200": v(rejected) } },
  listApprovals: {
    responses: {
      "200": v({
        approvals: [
          {
            execution_id: EXEC,
            tool: "lab.erase",
            version: "1.0.0",
            effects: "delete",
            agent: "cleanup-bot",
            project: null,
            rule: "effect delete",
            input: { name: "old-reports" },
            input_bytes: 22,
            accepted_at: AT,
            expires_at: "2026-12-01T15:06:05.123Z",
          },
        ],
      }),
    },
  },
};
