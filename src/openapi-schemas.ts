/**
 * The component schemas of the OpenAPI document (src/openapi.ts): every body the runtime
 * answers, property by property. They mirror the shared types (src/contract.ts and the types
 * the routes build); `npm run typecheck` holds the two together (test/openapi/contract.ts
 * assigns each project type to the type openapi-typescript generates from these schemas, and
 * back), and the e2e suite holds every real response to them.
 *
 * Adding a status, an event type or a field is one line: the lists below, or one property.
 * Request defaults are said in descriptions, not with `default`: openapi-typescript (as
 * generators commonly do) types a property with a default as always present.
 */
import { ERROR_TABLE } from "./errors.ts";

/** docs/contract.md#statuses (src/contract.ts ExecutionStatus), with approval before it (docs/contract.md#approvals). */
export const EXECUTION_STATUSES = [
  "awaiting_approval",
  "queued",
  "scheduled",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "timed_out",
];
/** docs/contract.md#cancellation (src/contract.ts CancellationOutcome). */
const CANCELLATION_OUTCOMES = ["before_start", "cooperative", "forced", "already_finished"];
/** docs/contract.md#streaming: what a provider emits, then the one terminal event. */
const EMITTED_EVENT_TYPES = ["stdout", "stderr", "progress", "partial", "log"];
const TRUST = ["system", "verified", "community"];
const BREAKER = ["closed", "open", "half_open"];
const ERROR_TYPES = ["request_error", "auth_error", "registry_error", "execution_error", "runtime_error"];

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** Any JSON value (a tool's input or output: its own schema is in GET /v1/tools/{name}). */
const anyJson = {};
/** An object with members the runtime does not fix (a JSON Schema, error details, a context). */
const freeObject = { type: "object", additionalProperties: true };
const str = { type: "string" };
const int = { type: "integer" };
const num = { type: "number" };
const bool = { type: "boolean" };
const time = { type: "string", format: "date-time" };
const nullable = (schema: { type: string; [k: string]: unknown }) => ({ ...schema, type: [schema.type, "null"] });
const strings = { type: "array", items: str };
const oneOfStrings = (values: readonly string[]) => ({ type: "string", enum: values });

/** A closed object: every property listed; `required` names those always present. */
function object(
  properties: Record<string, object>,
  required: string[] = Object.keys(properties),
  description?: string,
) {
  return { type: "object", ...(description ? { description } : {}), required, properties, additionalProperties: false };
}

/** The list's members, each one line; `optional` are left out of `required`. */
const all = (properties: Record<string, object>, optional: string[] = []) =>
  object(
    properties,
    Object.keys(properties).filter((k) => !optional.includes(k)),
  );

const violation = all({
  path: { ...str, description: "JSON Pointer into the input (empty: the whole input)" },
  message: str,
  keyword: str,
});
const deprecation = all({ sunset: time, replacement: nullable(str), deprecated_at: time });
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

const apiKey = {
  key_id: str,
  tenant: str,
  agent: str,
  capabilities: strings,
  channels: strings,
  role: {
    ...oneOfStrings(["agent", "tenant_admin", "approver", "admin", "tenant"]),
    description:
      "agent: calls tools, sees its own executions (tenant: a key made before roles, the same); tenant_admin: also every execution, audit record, upstream token and key of its tenant; approver: also decides its tenant's approvals; admin: an operator",
  },
  created_at: time,
  revoked_at: time,
};
const mode = oneOfStrings(["sync", "async"]);
const effects = oneOfStrings(["read", "write", "delete", "send"]);
/** A person's decision on a call that needed approval (docs/contract.md#approvals). */
const approvalDecision = all({
  decision: oneOfStrings(["approved", "rejected"]),
  approver: { ...str, description: "the approver's agent" },
  reason: nullable(str),
  at: time,
});

// Upstream MCP servers (docs/contract.md#upstreams; src/upstreams/).
const policyFields = {
  latency_class: oneOfStrings(["instant", "fast", "slow", "long_running"]),
  effects: oneOfStrings(["read", "write", "delete", "send"]),
  idempotent: bool,
  capability_required: {
    ...nullable(str),
    description: "The capability a caller must hold (level 3), as for a native tool (kind:value)",
  },
  max_timeout_ms: { type: "integer", minimum: 1 },
};
const toolPolicy = all(policyFields, ["max_timeout_ms"]);
const partialPolicy = object(policyFields, []);
const policies = {
  type: "object",
  additionalProperties: partialPolicy,
  description: "By the tool's name on the upstream",
};
const onChange = {
  type: "string",
  enum: ["keep", "withhold"],
  description:
    "While a changed definition waits for approval: the approved one keeps serving (keep), or the tool is withheld",
};

export const schemas = {
  ExecutionId: {
    type: "string",
    pattern: "^exec_([0-9a-f]{64}|e[0-9a-f]{44})$",
    description:
      "exec_<64 hex>: an execution with its own object (async, streamed, keyed); exec_e<44 hex>: a sync call that ran at the edge.",
  },
  ErrorBody: all(
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
  ),
  ErrorEnvelope: all({ error: ref("ErrorBody") }),
  ExecutionRequest: all(
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
  ),
  CancelRequest: object(
    { grace_ms: { type: "integer", minimum: 0, description: "0 stops waiting at once; at most MAX_CANCEL_GRACE_MS." } },
    [],
  ),
  ExecutionBlock: all({
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
  }),
  ExecutionResources: {
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
  },
  Attempt: all({
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
  }),
  CapabilityDecision: all({
    level1: all({ reachable: strings }),
    level2: intent,
    level3: all({ required: nullable(str), granted_by: nullable(str) }),
  }),
  Cancellation: all({
    requested_at: time,
    outcome: { type: ["string", "null"], enum: [...CANCELLATION_OUTCOMES, null] },
  }),
  ExecutionView: all(
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
  ),
  ApprovalState: all({
    expires_at: { ...time, description: "When an undecided approval expires (approval_expired)." },
    rule: { ...str, description: 'The tenant\'s rule that matched, e.g. "effect delete" or "tool lab.erase".' },
    decision: { oneOf: [approvalDecision, { type: "null" }] },
  }),
  ApprovalDecision: approvalDecision,
  PendingApproval: all({
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
  }),
  ApprovalList: all({ approvals: { type: "array", items: ref("PendingApproval") } }),
  ApprovalRequest: object(
    { reason: { type: "string", maxLength: 1000, description: "Why (required to reject)." } },
    [],
  ),
  /** A sync call that ran and did not succeed: the view with its error, at the error's status. */
  FailedExecution: { allOf: [ref("ExecutionView")], required: ["error"] },
  Accepted: all({ execution_id: str, status: oneOfStrings(EXECUTION_STATUSES) }),
  DryRun: all({
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
  }),
  StreamEvent: all({
    seq: { type: "integer", minimum: 1, description: "Also the SSE id: resume with Last-Event-ID." },
    type: oneOfStrings(["start", ...EMITTED_EVENT_TYPES, "done", "error"]),
    at: time,
    data: {
      ...anyJson,
      description:
        "start: {sandbox, worker}; done: {output, execution}; error: {status, error, partial_output?, cancellation?, execution}; others: what the tool emitted.",
    },
  }),
  ToolList: all({
    registry_version: int,
    tools: {
      type: "array",
      items: all({
        name: str,
        active_version: str,
        description: str,
        versions: strings,
        providers: { ...strings, description: "best first" },
      }),
    },
  }),
  ToolView: all({
    name: str,
    active_version: str,
    description: str,
    versions: {
      type: "array",
      items: all({
        version: str,
        active: bool,
        description: str,
        deprecation: { oneOf: [deprecation, { type: "null" }] },
        providers: { type: "array", items: ref("ToolOffering") },
      }),
    },
  }),
  ToolOffering: all({
    provider: str,
    trust: oneOfStrings(TRUST),
    p50_ms: nullable(num),
    error_rate: nullable(num),
    samples: int,
    breaker: oneOfStrings(BREAKER),
    alive: bool,
    disabled: bool,
    capability_required: nullable(str),
    idempotent: bool,
    latency_class: oneOfStrings(["instant", "fast", "slow", "long_running"]),
    effects: oneOfStrings(["read", "write", "delete", "send"]),
    coercion: oneOfStrings(["strict", "lenient"]),
    partial_merge: {
      ...oneOfStrings(["replace", "append"]),
      description: "How its partial events make the partial output.",
    },
    error_codes: {
      type: "array",
      items: all({ code: str, description: str }),
      description: "The tool's own error codes (details.tool_code of a tool_error).",
    },
    input_schema: { type: ["object", "boolean"], additionalProperties: true },
    output_schema: { type: ["object", "boolean"], additionalProperties: true },
  }),
  ExecutionList: all({
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
  }),
  RefusalCounts: all({
    refusals: {
      type: "array",
      items: all({
        tenant: str,
        tool: str,
        reason: { ...str, description: "rate, tool_rate, concurrency, queue_full, streams or subscribers" },
        count: int,
      }),
    },
    truncated: { type: "boolean", description: "More rows than one answer holds: narrow by tenant or tool." },
  }),
  AuditList: all({
    records: {
      type: "array",
      items: all({
        execution_id: str,
        tenant: str,
        agent: str,
        project: nullable(str),
        face: { ...oneOfStrings(["rest", "rpc", "connect", "mcp"]), description: "The face the call came through." },
        tool: str,
        version: str,
        provider: nullable(str),
        params_hash: { ...str, description: "SHA-256 of the input (never the input)" },
        mode,
        status: oneOfStrings(EXECUTION_STATUSES),
        error_code: nullable(str),
        latency_ms: int,
        attempts: { type: "array", items: ref("Attempt") },
        resources: ref("ExecutionResources"),
        capability: ref("CapabilityDecision"),
        approval: {
          oneOf: [ref("ApprovalDecision"), { type: "null" }],
          description: "The person's decision, for a call that needed approval.",
        },
        correlation_id: nullable(str),
        trace_id: nullable(str),
        accepted_at: time,
        ended_at: time,
      }),
    },
    next_cursor: nullable(str),
  }),
  Health: all({ status: { type: "string", const: "ok" } }),
  /** RFC 9728 §2, for the MCP endpoint (src/mcp/resource-server.ts). */
  ProtectedResourceMetadata: all(
    {
      resource: {
        ...str,
        format: "uri",
        description: "This resource's identifier: /mcp's URL (MCP_RESOURCE, or the request's origin + /mcp)",
      },
      authorization_servers: {
        ...strings,
        description: "The configured JWT issuer (JWT_ISSUER), when JWTs are accepted",
      },
      bearer_methods_supported: { type: "array", items: { type: "string", const: "header" } },
      resource_name: str,
    },
    ["authorization_servers"],
  ),
  Readiness: all({ status: oneOfStrings(["ready", "not_ready"]) }),
  ReadinessReport: all({
    status: oneOfStrings(["ready", "not_ready"]),
    checked_at: { ...time, description: "When this isolate made the check (answers are at most 2 s old)." },
    registry_version: int,
    tools: int,
    providers: { type: "array", items: all({ name: str, reachable: bool, error: str }, ["error"]) },
    audit_db: all(
      {
        ready: bool,
        reason: {
          ...str,
          description:
            "Why not ready, e.g. the schema is not migrated (run `npx wrangler d1 migrations apply AUDIT_DB --local|--remote`)",
        },
      },
      ["reason"],
    ),
    problems: strings,
  }),
  Provider: all(
    {
      name: str,
      binding: str,
      trust: oneOfStrings(TRUST),
      seq: int,
      reachable: bool,
      tools: int,
      error: str,
      disabled: bool,
      dead: all({ since: num, reason: str }),
      kind: { type: "string", enum: ["upstream"], description: "An upstream MCP server rather than a provider Worker" },
      max_concurrency: {
        type: "integer",
        minimum: 1,
        description: "The most calls it takes at once (its manifest's, or an operator's override).",
      },
    },
    ["error", "disabled", "dead", "kind", "max_concurrency"],
  ),
  UpstreamRegistration: object(
    {
      name: {
        type: "string",
        pattern: "^[a-z][a-z0-9-]{0,62}$",
        description: "Its provider name, unique among providers and upstreams",
      },
      binding: {
        ...str,
        description: "A service binding to an MCP Worker (its endpoint is /mcp). Exactly one of binding and url.",
      },
      url: {
        type: "string",
        format: "uri",
        description: "The https URL of its MCP endpoint; public addresses only (the egress guard of http.request)",
      },
      trust: oneOfStrings(TRUST),
      prefix: {
        type: "string",
        pattern: "^[a-z0-9._-]{0,64}$",
        description: "Put before each tool's name in the registry; none when left out",
      },
      tools: {
        ...strings,
        minItems: 1,
        description: 'The allow-list: its tools to serve, by their names there; ["*"] for all',
      },
      defaults: {
        ...partialPolicy,
        description:
          "What MCP does not say, for every tool; left out: slow, effects send, not idempotent, no capability",
      },
      tool_policies: policies,
      secret: {
        type: "string",
        pattern: "^[A-Z][A-Z0-9_]{0,63}$",
        description: "The NAME of a Worker secret whose value is sent as Authorization: Bearer …; never the value",
      },
      tenant_credentials: {
        ...bool,
        description:
          "Tenants may store their own token for it (PUT /v1/upstreams/{name}/credential); false when left out",
      },
      on_change: onChange,
      version: { ...str, description: "The version its tools are offered under; 1.0.0 when left out" },
    },
    ["name", "trust", "tools"],
  ),
  Upstream: all({
    name: str,
    source: {
      type: "string",
      enum: ["config", "admin"],
      description: "UPSTREAMS in deploy configuration, or the admin API",
    },
    binding: nullable(str),
    url: nullable(str),
    trust: oneOfStrings(TRUST),
    prefix: str,
    tools: strings,
    defaults: toolPolicy,
    tool_policies: policies,
    secret: { ...nullable(str), description: "The secret's name (its value is never shown)" },
    tenant_credentials: bool,
    on_change: onChange,
    version: str,
    status: all({
      listed_at: { ...nullable(str), format: "date-time" },
      error: {
        ...nullable(str),
        description: "Why the last listing failed; the last known tools keep serving, marked dead",
      },
      era: {
        type: ["string", "null"],
        enum: ["modern", "legacy", null],
        description: "modern: 2026-07-28; legacy: 2025 (initialize)",
      },
      served: { ...strings, description: "Registry names of the tools served now" },
      withheld: { ...strings, description: "Tools not served because their definition changed (on_change withhold)" },
      not_allowed: { ...int, description: "Listed tools the allow-list leaves out" },
    }),
    pins: {
      type: "array",
      items: all({ tool: str, hash: str, approved_at: time, approved_by: oneOfStrings(["registration", "operator"]) }),
    },
    changes: {
      type: "array",
      description: "Definitions listed since their approval that no operator has approved or rejected yet",
      items: all({
        tool: str,
        registry_name: str,
        approved_hash: str,
        new_hash: { ...str, description: "Approve this hash to serve the new definition" },
        seen_at: time,
        diff: {
          type: "array",
          items: all({
            path: {
              ...str,
              description:
                "JSON Pointer into the definition (name, description, inputSchema, outputSchema, annotations)",
            },
            before: anyJson,
            after: anyJson,
          }),
        },
        serving: oneOfStrings(["approved", "withheld"]),
      }),
    },
    rejections: {
      type: "array",
      description: "Definitions an operator rejected: a listing never offers these hashes for approval again",
      items: all({
        tool: str,
        hash: str,
        rejected_at: time,
        rejected_by: { ...str, description: "The operator's key, as tenant/agent" },
        reason: nullable(str),
      }),
    },
  }),
  UpstreamList: all({ upstreams: { type: "array", items: ref("Upstream") } }),
  UpstreamRemoved: all({ name: str }),
  DefinitionApproval: object({
    hash: { type: "string", pattern: "^[0-9a-f]{64}$", description: "The new_hash of the change that was reviewed" },
  }),
  DefinitionRejection: object(
    {
      hash: { type: "string", pattern: "^[0-9a-f]{64}$", description: "The new_hash of the change that was reviewed" },
      reason: { type: "string", maxLength: 1000, description: "Why; kept with the rejection and logged" },
    },
    ["hash"],
  ),
  UpstreamCredentialRequest: object({
    token: {
      type: "string",
      minLength: 1,
      maxLength: 4096,
      writeOnly: true,
      description:
        "Sent as Authorization: Bearer … on your tenant's calls to this upstream only; stored encrypted, never answered back",
    },
  }),
  UpstreamCredential: all({
    upstream: str,
    stored: bool,
    usable: {
      ...bool,
      description:
        "Whether the stored token is sent on your calls: false once the upstream is registered again at another URL or binding (or the runtime's key changed); store it again",
    },
    updated_at: { ...nullable(str), format: "date-time" },
  }),
  RegistrySummary: all({
    registry_version: int,
    providers: { type: "array", items: ref("Provider") },
    problems: strings,
    tools: int,
  }),
  ProviderPatch: object(
    {
      trust: oneOfStrings(TRUST),
      disabled: bool,
      max_concurrency: {
        type: ["integer", "null"],
        minimum: 1,
        description: "Calls in flight at once at most; null: the manifest's again.",
      },
    },
    [],
  ),
  DeprecationRequest: object(
    {
      sunset: time,
      replacement: {
        ...nullable(str),
        description: "name or name@version of a tool the registry has (else 400 invalid_request)",
      },
    },
    ["sunset"],
  ),
  DeprecationState: all({
    tool: str,
    version: str,
    deprecation: { oneOf: [deprecation, { type: "null" }] },
    active_version: str,
  }),
  ApiKeyRequest: object(
    {
      tenant: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
      agent: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
      capabilities: { ...strings, description: "none when left out (least privilege)" },
      channels: {
        ...strings,
        description: 'The providers the key may reach: none when left out (least privilege); ["*"] for every provider.',
      },
      role: {
        type: "string",
        enum: ["agent", "tenant_admin", "approver", "admin", "tenant"],
        description:
          "agent when left out (tenant: its old name, stored as agent); tenant_admin: also sees and cancels its tenant's executions, reads its audit records, keeps its upstream tokens and manages its keys; approver: also decides its tenant's approvals (not its own call); admin makes an operator's key (operators only)",
      },
    },
    ["tenant", "agent"],
  ),
  BootstrapRequest: object(
    {
      tenant: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "ops when left out" },
      agent: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "operator when left out" },
    },
    [],
  ),
  ApiKey: all(apiKey, ["revoked_at"]),
  NewApiKey: all({ key: { ...str, description: "The secret: shown in this answer only." }, ...apiKey }, ["revoked_at"]),
  ApiKeyList: all({ keys: { type: "array", items: ref("ApiKey") } }),

  AuditDrill: all({ armed: str }),
  SendDrillRequest: object({ count: { type: "integer", minimum: 1, maximum: 100 } }, []),
  SendDrill: all({ armed: str, count: int }),
  BatchesDrillRequest: object(
    {
      count: {
        type: "integer",
        minimum: 1,
        maximum: 100,
        description: "Batches to fail; more than the queue's max_retries (10) sends a batch to the dead letter queue.",
      },
      tenant: {
        type: "string",
        minLength: 1,
        maxLength: 200,
        description:
          "Fail only this tenant's execution records, one message at a time (each delivery of them counts once); everyone else's are written on time.",
      },
    },
    ["count"],
  ),
  BatchesDrill: all({ armed: str, count: int, tenant: str }, ["tenant"]),
  AuditDrills: all({
    fail_next_batch: all({ armed: bool, fired: int, last_batch_size: nullable(int), last_written: nullable(int) }),
    fail_next_send: all({ armed: int, failed: int }),
    fail_batches: all({
      armed: { ...int, description: "Deliveries still to fail, of every tenant's records" },
      tenants: {
        type: "object",
        additionalProperties: int,
        description: "Tenant → deliveries of its records still to fail",
      },
    }),
  }),
};
