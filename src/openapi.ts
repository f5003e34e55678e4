/**
 * The OpenAPI 3.1 description of `/v1`, served at `/v1/openapi.json`. Error codes come from
 * the error table itself; the schemas mirror src/contract.ts, and the end-to-end suite
 * checks every response it receives against this document, so the two cannot drift apart
 * unnoticed (test/e2e/openapi.ts).
 */
import { ERROR_TABLE } from "./errors.ts";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: object) => ({ "application/json": { schema }, "application/msgpack": { schema } });
const errorResponse = (description: string) => ({ description, content: json(ref("ErrorEnvelope")) });

const STATUSES = ["queued", "scheduled", "running", "succeeded", "failed", "cancelled", "timed_out"];
const anyJson = {};

const schemas = {
  ErrorBody: {
    type: "object",
    required: ["code", "message", "type", "retryable"],
    properties: {
      code: { enum: Object.keys(ERROR_TABLE) },
      message: { type: "string" },
      type: { enum: ["request_error", "auth_error", "registry_error", "execution_error", "runtime_error"] },
      retryable: { type: "boolean" },
      details: { type: "object" },
    },
    additionalProperties: false,
  },
  ErrorEnvelope: { type: "object", required: ["error"], properties: { error: ref("ErrorBody") }, additionalProperties: false },
  ExecutionRequest: {
    type: "object",
    required: ["tool", "input"],
    additionalProperties: false,
    properties: {
      tool: { type: "string" },
      version: { type: "string" },
      provider: { type: "string" },
      tenant: { type: "string" },
      project: { type: "string" },
      input: anyJson,
      context: { type: "object" },
      limits: {
        type: "object",
        additionalProperties: false,
        properties: { timeout_ms: { type: "integer", minimum: 1 }, max_output_bytes: { type: "integer", minimum: 1 } },
      },
      mode: { enum: ["sync", "async", "dry_run"] },
      stream: { type: "boolean" },
      idempotency_key: { type: "string", minLength: 1, maxLength: 255 },
    },
  },
  ExecutionBlock: {
    type: "object",
    required: ["sandbox", "worker", "queued_ms", "started_ms", "duration_ms", "timeout_ms", "resources"],
    additionalProperties: false,
    properties: {
      sandbox: { const: "v8-isolate" },
      worker: { type: ["string", "null"] },
      queued_ms: { type: ["number", "null"] },
      started_ms: { type: ["number", "null"] },
      duration_ms: { type: ["number", "null"] },
      timeout_ms: { type: "number" },
      resources: {
        type: "object",
        required: ["cpu_ms", "peak_memory_mb"],
        properties: { cpu_ms: { type: "null" }, peak_memory_mb: { type: "null" } },
        additionalProperties: false,
      },
    },
  },
  Attempt: {
    type: "object",
    required: ["attempt", "provider", "outcome", "started_ms", "duration_ms"],
    additionalProperties: false,
    properties: { attempt: { type: "integer" }, provider: { type: "string" }, outcome: { type: "string" }, started_ms: { type: "number" }, duration_ms: { type: "number" } },
  },
  ExecutionView: {
    type: "object",
    required: ["execution_id", "tool", "version", "status", "execution"],
    additionalProperties: false,
    properties: {
      execution_id: { type: "string", pattern: "^exec_([0-9a-f]{64}|e[0-9a-f]{44})$" },
      tool: { type: "string" },
      version: { type: "string" },
      status: { enum: STATUSES },
      output: anyJson,
      partial_output: anyJson,
      error: ref("ErrorBody"),
      cancellation: {
        type: "object",
        required: ["requested_at", "outcome"],
        additionalProperties: false,
        properties: { requested_at: { type: "string" }, outcome: { enum: ["before_start", "cooperative", "forced", "already_finished", null] } },
      },
      capability: { type: "object", required: ["level1", "level2", "level3"] },
      attempts: { type: "array", items: ref("Attempt") },
      execution: ref("ExecutionBlock"),
    },
  },
  Accepted: {
    type: "object",
    required: ["execution_id", "status"],
    additionalProperties: false,
    properties: { execution_id: { type: "string" }, status: { enum: STATUSES } },
  },
  DryRun: {
    type: "object",
    required: ["mode", "tool", "version", "provider", "ranking", "excluded", "capability", "schema", "deprecation"],
    properties: { mode: { const: "dry_run" }, provider: { type: ["string", "null"] }, ranking: { type: "array" }, excluded: { type: "array" } },
  },
  ToolSummary: {
    type: "object",
    required: ["name", "active_version", "description", "versions", "providers"],
    properties: { name: { type: "string" }, versions: { type: "array", items: { type: "string" } }, providers: { type: "array", items: { type: "string" } } },
  },
  ToolView: {
    type: "object",
    required: ["name", "active_version", "description", "versions"],
    properties: {
      name: { type: "string" },
      active_version: { type: "string" },
      versions: {
        type: "array",
        items: {
          type: "object",
          required: ["version", "active", "providers"],
          properties: {
            providers: {
              type: "array",
              items: {
                type: "object",
                required: ["provider", "trust", "p50_ms", "error_rate", "breaker", "alive", "input_schema", "output_schema"],
                properties: { trust: { enum: ["system", "verified", "community"] }, breaker: { enum: ["closed", "open", "half_open"] } },
              },
            },
          },
        },
      },
    },
  },
  ExecutionList: {
    type: "object",
    required: ["executions", "next_cursor"],
    properties: { executions: { type: "array", items: { type: "object", required: ["execution_id", "tool", "status", "accepted_at"] } }, next_cursor: { type: ["string", "null"] } },
  },
  AuditList: {
    type: "object",
    required: ["records", "next_cursor"],
    properties: { records: { type: "array", items: { type: "object", required: ["execution_id", "tenant", "agent", "tool", "params_hash", "status"] } }, next_cursor: { type: ["string", "null"] } },
  },
};

const errors = {
  "400": errorResponse("invalid_request, invalid_input, resource_exceeded"),
  "401": errorResponse("unauthenticated"),
  "403": errorResponse("forbidden (details.level: 1, 2 or 3)"),
  "404": errorResponse("tool_not_found, execution_not_found"),
  "406": errorResponse("not_acceptable"),
  "409": errorResponse("idempotency_conflict, cancelled"),
  "410": errorResponse("tool_deprecated"),
  "413": errorResponse("payload_too_large"),
  "415": errorResponse("unsupported_media_type"),
  "429": errorResponse("rate_limited (Retry-After)"),
  "500": errorResponse("internal"),
  "503": errorResponse("no_healthy_provider, sandbox_unavailable (Retry-After)"),
};

/** An execution that ran and failed answers with its error's status and both the view and `error`. */
const failedExecution = { description: "the execution ran and did not succeed", content: json(ref("ExecutionView")) };

const id = { name: "id", in: "path", required: true, schema: { type: "string" } };

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Tool Runtime",
    version: "1.0.0",
    description: "TRT-002: invoke tools by name, synchronously, asynchronously or as a stream of events, with cancellation.",
  },
  components: {
    schemas,
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "An API key (trt_…) or a JWT from the configured issuer." } },
  },
  security: [{ bearer: [] }],
  paths: {
    "/v1/executions": {
      post: {
        summary: "Invoke a tool (sync, async, dry run, or streamed)",
        requestBody: { required: true, content: json(ref("ExecutionRequest")) },
        responses: {
          "200": {
            description: "sync: the finished execution; dry_run: the decision; stream: text/event-stream",
            content: { ...json({ oneOf: [ref("ExecutionView"), ref("DryRun")] }), "text/event-stream": { schema: { type: "string" } } },
          },
          "202": { description: "async: accepted", content: json(ref("Accepted")) },
          ...errors,
          "422": failedExecution,
          "502": failedExecution,
          "504": failedExecution,
        },
      },
      get: {
        summary: "The caller's tenant's executions, newest first",
        parameters: ["tool", "status", "since", "until", "limit", "cursor"].map((name) => ({ name, in: "query", required: false, schema: { type: "string" } })),
        responses: { "200": { description: "a page", content: json(ref("ExecutionList")) }, ...errors },
      },
    },
    "/v1/executions/{id}": {
      get: { summary: "Status, and the result once finished", parameters: [id], responses: { "200": { description: "the execution", content: json(ref("ExecutionView")) }, ...errors } },
    },
    "/v1/executions/{id}/stream": {
      get: {
        summary: "The execution's events (SSE), replayed from Last-Event-ID or ?after=",
        parameters: [id],
        responses: { "200": { description: "event stream", content: { "text/event-stream": { schema: { type: "string" } } } }, "204": { description: "resumed past the terminal event" }, ...errors },
      },
    },
    "/v1/executions/{id}/cancel": {
      post: { summary: "Cancel (TRT-002 §8)", parameters: [id], responses: { "200": { description: "the execution, ended", content: json(ref("ExecutionView")) }, ...errors } },
    },
    "/v1/tools": {
      get: {
        summary: "Every tool",
        responses: {
          "200": { description: "the registry's view", content: json({ type: "object", required: ["registry_version", "tools"], properties: { tools: { type: "array", items: ref("ToolSummary") } } }) },
          ...errors,
        },
      },
    },
    "/v1/tools/{name}": {
      get: { summary: "One tool", parameters: [{ ...id, name: "name" }], responses: { "200": { description: "the tool", content: json(ref("ToolView")) }, ...errors } },
    },
    "/v1/audit": {
      get: { summary: "Operators: the audit log", responses: { "200": { description: "a page", content: json(ref("AuditList")) }, ...errors } },
    },
  },
} as const;
