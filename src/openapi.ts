/**
 * The OpenAPI 3.1 description of the HTTP face, served at `/v1/openapi.json`: `/v1`, the
 * operations endpoints (docs/contract.md#routes) and the operators' routes. The Connect/gRPC-Web face is
 * described by its own contract (proto/tool_runtime/v1/runtime.proto).
 *
 * Derived, not copied: each error status, its codes and its description come from the error
 * table (src/errors.ts); each operation names the codes it can answer and their statuses
 * follow. Body schemas are in src/openapi-schemas.ts, an example of each operation's request
 * and answer in src/openapi-examples.ts. Three checks keep the document true:
 * Redocly's recommended rules (test/unit/openapi-lint.test.ts), the project's types against
 * the types openapi-typescript generates from it (`npm run typecheck`), and every response
 * the e2e suite receives against the document the running server serves (test/e2e/conformance.ts).
 */
import { ERROR_TABLE, type ErrorCode } from "./errors.ts";
import { withExamples } from "./openapi-examples.ts";
import { EXECUTION_STATUSES, ref, schemas } from "./openapi-schemas.ts";
import { RETRY_AFTER_STATUSES } from "./retry-after.ts";

const JSON_TYPE = "application/json";
/** Every JSON answer can also be had in MessagePack (`Accept: application/msgpack`). */
const body = (schema: object) => ({ [JSON_TYPE]: { schema }, "application/msgpack": { schema } });
const requestBody = (schema: object, required = true) => ({
  required,
  content: { ...body(schema), "application/vnd.msgpack": { schema } },
});
const ok = (description: string, schema: object, headers?: object) => ({
  description,
  ...(headers ? { headers } : {}),
  content: body(schema),
});
const header = (name: string) => ({ $ref: `#/components/headers/${name}` });

// ── errors, from the table ─────────────────────────────────────────────────────────────

const statusOf = (code: ErrorCode) => ERROR_TABLE[code].status;
const codesByStatus = new Map<number, ErrorCode[]>();
for (const code of Object.keys(ERROR_TABLE) as ErrorCode[])
  codesByStatus.set(statusOf(code), [...(codesByStatus.get(statusOf(code)) ?? []), code]);

/** Every 429 and 503 says when (src/retry-after.ts): `Retry-After`, and `details.retry_after_ms` when there is an error. */
const retryAfter = (status: number) =>
  RETRY_AFTER_STATUSES.has(status) ? { headers: { "Retry-After": header("RetryAfter") } } : {};
const describeStatus = (status: number) =>
  codesByStatus
    .get(status)!
    .map((c) => `\`${c}\`: ${ERROR_TABLE[c].meaning}`)
    .join("; ");

/** Every route may answer these: an unanswerable Accept, and a runtime fault. */
const ALWAYS: ErrorCode[] = ["not_acceptable", "internal"];
/** Every authenticated request counts against its tenant's rate (src/policy/request-rate.ts). */
const CALLER: ErrorCode[] = [...ALWAYS, "unauthenticated", "rate_limited"];
const OPERATOR: ErrorCode[] = [...CALLER, "forbidden"];

const usedErrorStatuses = new Set<number>();
/** The error responses of an operation that can answer `codes`: `Error<status>` for each status. */
function errors(codes: ErrorCode[]): Record<string, object> {
  return Object.fromEntries(
    codes.map((c) => {
      usedErrorStatuses.add(statusOf(c));
      return [String(statusOf(c)), { $ref: `#/components/responses/Error${statusOf(c)}` }];
    }),
  );
}
/** One component per status some operation answers (an unreferenced component is noise). */
const errorResponses = () =>
  Object.fromEntries(
    [...usedErrorStatuses]
      .sort()
      .map((status) => [
        `Error${status}`,
        { description: describeStatus(status), ...retryAfter(status), content: body(ref("ErrorEnvelope")) },
      ]),
  );

/**
 * A sync execution that ran and failed answers with its error's status and the execution
 * view plus `error` (README "Every error is one envelope"); refusals before it ran are the
 * plain envelope. Both carry `error.code`.
 */
const ENDS_AN_EXECUTION = new Set(
  (Object.keys(ERROR_TABLE) as ErrorCode[])
    .filter((c) => ERROR_TABLE[c].type === "execution_error" || c === "internal")
    .map(statusOf),
);
function executionErrors(codes: ErrorCode[]): Record<string, object> {
  const out = errors(codes.filter((c) => !ENDS_AN_EXECUTION.has(statusOf(c))));
  for (const status of ENDS_AN_EXECUTION) {
    out[String(status)] = {
      description: `${describeStatus(status)}. A sync execution that ran answers with the execution and its error.`,
      ...retryAfter(status),
      content: body({ oneOf: [ref("ErrorEnvelope"), ref("FailedExecution")] }),
    };
  }
  return out;
}

// ── parameters and headers ─────────────────────────────────────────────────────────────

const path = (name: string, description: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: { type: "string" },
});
const query = (name: string, schema: object, description: string) => ({
  name,
  in: "query",
  required: false,
  description,
  schema,
});
const executionId = path("id", "An execution id (exec_…). Unknown, expired and other tenants' ids answer alike.");
const listFilters = [
  query("tool", { type: "string" }, "Only this tool."),
  query("status", { type: "string", enum: EXECUTION_STATUSES }, "Only this status."),
  query("since", { type: "string", format: "date-time" }, "Accepted (index) or ended (audit) at or after."),
  query("until", { type: "string", format: "date-time" }, "… and before."),
  query("limit", { type: "integer", minimum: 1, maximum: 100, default: 50 }, "Page size."),
  query("cursor", { type: "string" }, "`next_cursor` of the previous page."),
];

const headers = {
  Location: { description: "Where the execution can be read.", schema: { type: "string" } },
  RetryAfter: { description: "Whole seconds until a retry may succeed.", schema: { type: "integer" } },
  Traceparent: { description: "W3C Trace Context: the caller's trace id, or a new trace.", schema: { type: "string" } },
  IdempotentReplayed: {
    description: "`true` when a duplicate of a keyed call got the original execution.",
    schema: { type: "string", enum: ["true"] },
  },
  Deprecation: {
    description: "RFC 9745: when the version was deprecated (`@<epoch seconds>`).",
    schema: { type: "string" },
  },
  Sunset: { description: "RFC 8594: when the version stops working.", schema: { type: "string" } },
};
const executionHeaders = {
  traceparent: header("Traceparent"),
  "Idempotent-Replayed": header("IdempotentReplayed"),
  Deprecation: header("Deprecation"),
  Sunset: header("Sunset"),
};

/** The media type's schema is that of each event's `data` (the common idiom for SSE in OpenAPI 3.1). */
const sse = { "text/event-stream": { schema: ref("StreamEvent") } };
const SSE_NOTE =
  "Server-Sent Events: `retry:` first, then one frame per event (`id:` its seq, `event:` its type, `data:` the StreamEvent as JSON) and `: heartbeat` comments; exactly one terminal `done` or `error` event, then the stream closes.";

// ── the document ───────────────────────────────────────────────────────────────────────

const PUBLIC: never[] = [];

const paths = withExamples({
  "/v1/executions": {
    post: {
      operationId: "createExecution",
      tags: ["executions"],
      summary: "Invoke a tool (sync, async, dry run, or streamed)",
      requestBody: requestBody(ref("ExecutionRequest")),
      responses: {
        "200": {
          description: `sync: the finished execution; dry_run: the decision; \`stream: true\`: the event stream. ${SSE_NOTE}`,
          headers: executionHeaders,
          content: { ...body({ oneOf: [ref("ExecutionView"), ref("DryRun")] }), ...sse },
        },
        "202": ok("async: accepted", ref("Accepted"), { Location: header("Location"), ...executionHeaders }),
        ...executionErrors([
          ...CALLER,
          "invalid_request",
          "invalid_input",
          "forbidden",
          "tool_not_found",
          "tool_deprecated",
          "payload_too_large",
          "unsupported_media_type",
          "idempotency_conflict",
          "rate_limited",
          "no_healthy_provider",
        ]),
      },
    },
    get: {
      operationId: "listExecutions",
      tags: ["executions"],
      summary:
        "Executions the caller may see, newest first: its own (agent, approver), or its tenant's (tenant_admin, operator)",
      parameters: listFilters,
      responses: { "200": ok("a page", ref("ExecutionList")), ...errors([...CALLER, "invalid_request"]) },
    },
  },
  "/v1/executions/{id}": {
    get: {
      operationId: "getExecution",
      tags: ["executions"],
      summary: "Status, and the result once finished",
      parameters: [executionId],
      responses: { "200": ok("the execution", ref("ExecutionView")), ...errors([...CALLER, "execution_not_found"]) },
    },
  },
  "/v1/executions/{id}/stream": {
    get: {
      operationId: "streamExecution",
      tags: ["executions"],
      summary: "The execution's events (SSE), replayed from Last-Event-ID or ?after=",
      parameters: [
        executionId,
        query("after", { type: "integer", minimum: 0 }, "Resume after this seq (Last-Event-ID wins)."),
        {
          name: "Last-Event-ID",
          in: "header",
          required: false,
          description: "Resume after this seq.",
          schema: { type: "integer", minimum: 0 },
        },
      ],
      responses: {
        "200": { description: `the event stream. ${SSE_NOTE}`, content: sse },
        "204": { description: "resumed at or past the terminal event: nothing more will come" },
        ...errors([...CALLER, "invalid_request", "execution_not_found", "rate_limited"]),
      },
    },
  },
  "/v1/executions/{id}/cancel": {
    post: {
      operationId: "cancelExecution",
      tags: ["executions"],
      summary: "Cancel",
      parameters: [executionId],
      // Like every body: JSON or MessagePack, anything else 415 (docs/contract.md#formats).
      requestBody: requestBody(ref("CancelRequest"), false),
      responses: {
        "200": ok("the execution, ended (or as it already was)", ref("ExecutionView")),
        ...errors([...CALLER, "invalid_request", "payload_too_large", "unsupported_media_type", "execution_not_found"]),
      },
    },
  },
  "/v1/executions/{id}/approve": {
    post: {
      operationId: "approveExecution",
      tags: ["approvals"],
      summary: "Approve a call that awaits approval (approver role): it goes on to run",
      parameters: [executionId],
      // Like every body: JSON or MessagePack, anything else 415 (docs/contract.md#formats).
      requestBody: requestBody(ref("ApprovalRequest"), false),
      responses: {
        "200": ok("the execution, now queued, scheduled or running", ref("ExecutionView")),
        ...errors([
          ...CALLER,
          "forbidden",
          "invalid_request",
          "payload_too_large",
          "unsupported_media_type",
          "execution_not_found",
          "approval_not_pending",
        ]),
      },
    },
  },
  "/v1/executions/{id}/reject": {
    post: {
      operationId: "rejectExecution",
      tags: ["approvals"],
      summary: "Reject a call that awaits approval (approver role; a reason is required): it ends failed, unrun",
      parameters: [executionId],
      // Like every body: JSON or MessagePack, anything else 415 (docs/contract.md#formats).
      requestBody: requestBody(ref("ApprovalRequest"), true),
      responses: {
        "200": ok("the execution, failed with approval_rejected", ref("ExecutionView")),
        ...errors([
          ...CALLER,
          "forbidden",
          "invalid_request",
          "payload_too_large",
          "unsupported_media_type",
          "execution_not_found",
          "approval_not_pending",
        ]),
      },
    },
  },
  "/v1/approvals": {
    get: {
      operationId: "listApprovals",
      tags: ["approvals"],
      summary: "The caller's tenant's calls waiting for a person's approval, oldest first (approver role)",
      responses: { "200": ok("the pending approvals", ref("ApprovalList")), ...errors([...CALLER, "forbidden"]) },
    },
  },
  "/v1/tools": {
    get: {
      operationId: "listTools",
      tags: ["tools"],
      summary: "Every tool",
      responses: { "200": ok("the registry's view", ref("ToolList")), ...errors(CALLER) },
    },
  },
  "/v1/tools/{name}": {
    get: {
      operationId: "getTool",
      tags: ["tools"],
      summary: "One tool: versions, providers with trust and health, schemas",
      parameters: [path("name", "The tool's name.")],
      responses: { "200": ok("the tool", ref("ToolView")), ...errors([...CALLER, "tool_not_found"]) },
    },
  },
  "/v1/openapi.json": {
    get: {
      operationId: "getOpenApiDocument",
      tags: ["operations"],
      summary: "This document",
      security: PUBLIC,
      responses: {
        "200": {
          description: "OpenAPI 3.1",
          content: { [JSON_TYPE]: { schema: { type: "object", additionalProperties: true } } },
        },
        ...errors(ALWAYS),
      },
    },
  },
  "/.well-known/oauth-protected-resource": {
    get: {
      operationId: "getProtectedResourceMetadata",
      tags: ["operations"],
      summary: "RFC 9728 metadata of the MCP endpoint (/mcp)",
      description:
        "How an MCP client finds out which authorization server issues tokens for /mcp. The same document as the /mcp-suffixed form.",
      security: PUBLIC,
      responses: {
        "200": {
          description: "RFC 9728 metadata",
          content: { [JSON_TYPE]: { schema: ref("ProtectedResourceMetadata") } },
        },
        ...errors(ALWAYS),
      },
    },
  },
  "/.well-known/oauth-protected-resource/mcp": {
    get: {
      operationId: "getMcpProtectedResourceMetadata",
      tags: ["operations"],
      summary: "RFC 9728 metadata of /mcp, at the path-suffixed location (RFC 9728 §3.1)",
      description: "Named by the `resource_metadata` parameter of /mcp's 401 challenge.",
      security: PUBLIC,
      responses: {
        "200": {
          description: "RFC 9728 metadata",
          content: { [JSON_TYPE]: { schema: ref("ProtectedResourceMetadata") } },
        },
        ...errors(ALWAYS),
      },
    },
  },
  "/healthz": {
    get: {
      operationId: "getHealth",
      tags: ["operations"],
      summary: "The Worker answers",
      security: PUBLIC,
      responses: { "200": ok("alive", ref("Health")), ...errors(ALWAYS) },
    },
  },
  "/readyz": {
    get: {
      operationId: "getReadiness",
      tags: ["operations"],
      summary:
        "The registry is loaded, every provider answers and the audit database is migrated (status only; the details are for operators: GET /v1/admin/readiness)",
      security: PUBLIC,
      responses: {
        "200": ok("ready (a check at most 2 s old)", ref("Readiness")),
        "503": ok("not ready", ref("Readiness"), { "Retry-After": header("RetryAfter") }),
        ...errors(ALWAYS),
      },
    },
  },
  "/metrics": {
    get: {
      operationId: "getMetrics",
      tags: ["operations"],
      summary: "Prometheus text format (operators)",
      responses: {
        "200": { description: "exposition format 0.0.4", content: { "text/plain": { schema: { type: "string" } } } },
        ...errors(OPERATOR),
      },
    },
  },
  "/v1/audit": {
    get: {
      operationId: "listAuditRecords",
      tags: ["operators"],
      summary: "The audit log: every tenant's (operators), or the caller's tenant's (tenant_admin)",
      description:
        "Other roles: 403 `forbidden` (`details.reason: tenant_admin role required`). A tenant admin naming another tenant: 403.",
      parameters: [
        ...listFilters,
        query("tenant", { type: "string" }, "Only this tenant (a tenant admin: its own only)."),
      ],
      responses: { "200": ok("a page", ref("AuditList")), ...errors([...OPERATOR, "invalid_request"]) },
    },
  },
  "/v1/audit/refusals": {
    get: {
      operationId: "listRefusalCounts",
      tags: ["operators"],
      summary: "Rate-limit refusals by tenant, tool and reason (the metric has no tenant label: tenants are unbounded)",
      parameters: [
        query("tenant", { type: "string" }, "Only this tenant."),
        query("tool", { type: "string" }, "Only this tool."),
      ],
      responses: {
        "200": ok("counts since the audit database began", ref("RefusalCounts")),
        ...errors([...OPERATOR, "invalid_request"]),
      },
    },
  },
  "/v1/admin/readiness": {
    get: {
      operationId: "getReadinessReport",
      tags: ["operators"],
      summary:
        "What /readyz found: registry version, tools, each provider's reachability and error, whether the audit database is migrated, the catalog's problems",
      responses: {
        "200": ok("the latest readiness check (at most 2 s old)", ref("ReadinessReport")),
        ...errors(OPERATOR),
      },
    },
  },
  "/v1/admin/registry/refresh": {
    post: {
      operationId: "refreshRegistry",
      tags: ["operators"],
      summary: "Re-read every provider's manifest",
      responses: { "200": ok("the new registry", ref("RegistrySummary")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/providers/{name}": {
    patch: {
      operationId: "updateProvider",
      tags: ["operators"],
      summary: "Change a provider's trust or max_concurrency, or disable it",
      parameters: [path("name", "The provider's configured name.")],
      requestBody: requestBody(ref("ProviderPatch")),
      responses: {
        "200": ok("the provider", ref("Provider")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type", "not_found"]),
      },
    },
  },
  "/v1/admin/providers/{name}/health": {
    delete: {
      operationId: "resetProviderHealth",
      tags: ["operators"],
      summary: "Forget what calls taught about a provider (statistics, breakers, liveness)",
      parameters: [path("name", "The provider's configured name.")],
      responses: { "200": ok("the provider", ref("Provider")), ...errors([...OPERATOR, "not_found"]) },
    },
  },
  "/v1/admin/tools/{name}/versions/{version}/deprecation": {
    parameters: [path("name", "The tool's name."), path("version", "The version.")],
    put: {
      operationId: "deprecateToolVersion",
      tags: ["operators"],
      summary: "Deprecate a version with a sunset and a replacement",
      requestBody: requestBody(ref("DeprecationRequest")),
      responses: {
        "200": ok("the version's deprecation", ref("DeprecationState")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type", "tool_not_found"]),
      },
    },
    delete: {
      operationId: "undeprecateToolVersion",
      tags: ["operators"],
      summary: "Lift a version's deprecation",
      responses: {
        "200": ok("the version, no longer deprecated", ref("DeprecationState")),
        ...errors([...OPERATOR, "tool_not_found"]),
      },
    },
  },
  "/v1/admin/bootstrap": {
    post: {
      operationId: "bootstrapOperator",
      tags: ["operators"],
      summary: "The first operator's key, once per deployment (its secret is in this answer only)",
      description:
        "Authorized by the `BOOTSTRAP_TOKEN` Worker secret as the bearer token, not by an API key. The first success marks the bootstrap used for good; " +
        "every later attempt, with any token, is 403 `forbidden` (`details.reason: bootstrap_used`): further keys come from `POST /v1/admin/keys` with an operator's key. " +
        "A wrong token is 401; without a BOOTSTRAP_TOKEN the route answers 404 like an unknown one. The key is an operator's (role admin, every channel).",
      requestBody: requestBody(ref("BootstrapRequest"), false),
      responses: {
        "201": ok("the operator's key", ref("NewApiKey")),
        ...errors([...OPERATOR, "not_found", "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
  "/v1/admin/keys": {
    post: {
      operationId: "createApiKey",
      tags: ["operators"],
      summary: "Create an API key (its secret is in this answer only)",
      description:
        "Operators make keys of any tenant and role; a tenant admin makes keys of its own tenant only, never role admin (403 `forbidden`). Other roles: 403 (`details.reason: tenant_admin role required`).",
      requestBody: requestBody(ref("ApiKeyRequest")),
      responses: {
        "201": ok("the key", ref("NewApiKey")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
    get: {
      operationId: "listApiKeys",
      tags: ["operators"],
      summary: "API keys, without secrets (a tenant admin: its own tenant's, operators' keys left out)",
      parameters: [
        query("tenant", { type: "string" }, "Only this tenant's keys (a tenant admin: its own only, else 403)."),
      ],
      responses: { "200": ok("the keys", ref("ApiKeyList")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/keys/{id}": {
    delete: {
      operationId: "revokeApiKey",
      tags: ["operators"],
      summary: "Revoke an API key (a tenant admin: its own tenant's, not an operator's; any other answers 404)",
      parameters: [path("id", "The key's id (key_…).")],
      responses: { "200": ok("the revoked key", ref("ApiKey")), ...errors([...OPERATOR, "not_found"]) },
    },
  },
  "/v1/admin/upstreams": {
    get: {
      operationId: "listUpstreams",
      tags: ["operators"],
      summary: "Upstream MCP servers: registration, last listing, approved definitions, changes waiting for approval",
      responses: { "200": ok("the upstreams", ref("UpstreamList")), ...errors(OPERATOR) },
    },
    post: {
      operationId: "registerUpstream",
      tags: ["operators"],
      summary: "Register an upstream MCP server; its allowed tools are listed and served at once",
      requestBody: requestBody(ref("UpstreamRegistration")),
      responses: {
        "201": ok("the upstream, listed", ref("Upstream")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
  "/v1/admin/upstreams/{name}": {
    parameters: [path("name", "The upstream's name.")],
    get: {
      operationId: "getUpstream",
      tags: ["operators"],
      summary: "One upstream, with each changed definition's diff",
      responses: { "200": ok("the upstream", ref("Upstream")), ...errors([...OPERATOR, "not_found"]) },
    },
    delete: {
      operationId: "removeUpstream",
      tags: ["operators"],
      summary: "Remove an upstream registered through this API (one from UPSTREAMS is removed there)",
      responses: {
        "200": ok("removed", ref("UpstreamRemoved")),
        ...errors([...OPERATOR, "invalid_request", "not_found"]),
      },
    },
  },
  "/v1/admin/upstreams/{name}/refresh": {
    post: {
      operationId: "refreshUpstream",
      tags: ["operators"],
      summary: "List the upstream's tools now",
      parameters: [path("name", "The upstream's name.")],
      responses: { "200": ok("the upstream, listed", ref("Upstream")), ...errors([...OPERATOR, "not_found"]) },
    },
  },
  "/v1/admin/upstreams/{name}/tools/{tool}/approve": {
    post: {
      operationId: "approveUpstreamChange",
      tags: ["operators"],
      summary: "Approve a changed tool definition by the hash that was reviewed; it serves at once",
      parameters: [path("name", "The upstream's name."), path("tool", "The tool's name on the upstream.")],
      requestBody: requestBody(ref("DefinitionApproval")),
      responses: {
        "200": ok("the upstream", ref("Upstream")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type", "not_found"]),
      },
    },
  },
  "/v1/admin/upstreams/{name}/tools/{tool}/reject": {
    post: {
      operationId: "rejectUpstreamChange",
      tags: ["operators"],
      summary:
        "Reject a changed tool definition by the hash that was reviewed; what served before serves on, and that hash is not raised again",
      parameters: [path("name", "The upstream's name."), path("tool", "The tool's name on the upstream.")],
      requestBody: requestBody(ref("DefinitionRejection")),
      responses: {
        "200": ok("the upstream", ref("Upstream")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type", "not_found"]),
      },
    },
  },
  "/v1/upstreams/{name}/credential": {
    parameters: [path("name", "An upstream that takes tenants' own tokens.")],
    get: {
      operationId: "getUpstreamCredential",
      tags: ["tools"],
      summary: "Whether your tenant stored a token for this upstream (never the token)",
      responses: {
        "200": ok("the credential's state", ref("UpstreamCredential")),
        ...errors([...CALLER, "not_found"]),
      },
    },
    put: {
      operationId: "putUpstreamCredential",
      tags: ["tools"],
      summary:
        "Store your tenant's own token for this upstream, encrypted; used for your tenant's calls to it only (tenant_admin or operator; others 403 `forbidden`)",
      requestBody: requestBody(ref("UpstreamCredentialRequest")),
      responses: {
        "200": ok("stored", ref("UpstreamCredential")),
        ...errors([
          ...CALLER,
          "invalid_request",
          "payload_too_large",
          "unsupported_media_type",
          "forbidden",
          "not_found",
        ]),
      },
    },
    delete: {
      operationId: "deleteUpstreamCredential",
      tags: ["tools"],
      summary:
        "Forget your tenant's token for this upstream (its own credential serves your calls again; tenant_admin or operator, others 403 `forbidden`)",
      responses: {
        "200": ok("forgotten", ref("UpstreamCredential")),
        ...errors([...CALLER, "forbidden", "not_found"]),
      },
    },
  },
  "/v1/admin/audit/drill/fail-next-batch": {
    post: {
      operationId: "armAuditDrill",
      tags: ["operators"],
      summary: "Drill: the audit consumer fails its next batch halfway",
      responses: { "200": ok("armed", ref("AuditDrill")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/audit/drill/fail-batches": {
    post: {
      operationId: "armAuditBatchesDrill",
      tags: ["operators"],
      summary:
        "Drill: the audit consumer fails its next `count` batches before writing anything (with `tenant`: hands back that tenant's records only, message by message); past max_retries they reach the dead letter queue, whose consumer must write them",
      requestBody: requestBody(ref("BatchesDrillRequest")),
      responses: {
        "200": ok("armed", ref("BatchesDrill")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
  "/v1/admin/audit/drills": {
    get: {
      operationId: "getAuditDrills",
      tags: ["operators"],
      summary: "What the audit drills have done: armed, fired, and the last batch the batch drill failed",
      responses: { "200": ok("the drills' state", ref("AuditDrills")), ...errors(OPERATOR) },
    },
  },
  "/v1/admin/audit/drill/fail-next-send": {
    post: {
      operationId: "armAuditSendDrill",
      tags: ["operators"],
      summary:
        "Drill: the next audit sends of the isolate serving this request fail; the durable outbox must deliver them",
      requestBody: requestBody(ref("SendDrillRequest"), false),
      responses: {
        "200": ok("armed", ref("SendDrill")),
        ...errors([...OPERATOR, "invalid_request", "payload_too_large", "unsupported_media_type"]),
      },
    },
  },
});

export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "Tool Runtime",
    version: "1.0.0",
    description:
      "Invoke tools by name, synchronously, asynchronously or as a stream of events, with cancellation. Every JSON answer is also available as MessagePack (`Accept: application/msgpack`). A path listed here asked with a method it does not list answers 405 `method_not_allowed` (an ErrorEnvelope) with an `Allow` header naming the methods it does answer (HEAD wherever GET is). The Connect/gRPC-Web face is described by proto/tool_runtime/v1/runtime.proto. " +
      "Roles inside a tenant: `agent` (the default; `tenant` is its old name) calls tools in its channels and reads, streams and cancels its own executions only — another agent's execution answers 404 `execution_not_found` like an unknown one; `tenant_admin` also sees and cancels every execution of its tenant, reads its audit records, keeps its upstream tokens and manages its keys (never an operator's); `approver` also decides its tenant's pending approvals, never its own call unless the tenant's APPROVALS rule sets `self_approval`; `admin` is an operator. A role that may not use an operation answers 403 `forbidden` with `details.reason`.",
    // The package is private and grants no licence (package.json has none).
    license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
  },
  servers: [{ url: "/", description: "The origin that serves this document." }],
  tags: [
    { name: "executions", description: "Invoke tools and follow, read and cancel their executions." },
    { name: "approvals", description: "A person's approval of calls the tenant's policy holds (approver role)." },
    { name: "tools", description: "The registry's view of tools, versions and providers." },
    { name: "operations", description: "Health, readiness, metrics and this document." },
    {
      name: "operators",
      description:
        "Operators (admin role): registry, upstreams, drills; the audit log and API keys also for a tenant's admins, within their tenant.",
    },
  ],
  security: [{ bearer: [] }],
  components: {
    schemas,
    responses: errorResponses(),
    headers,
    securitySchemes: {
      bearer: {
        type: "http",
        scheme: "bearer",
        description: "An API key (trt_…) or a JWT from the configured issuer.",
      },
    },
  },
  paths,
} as const;
