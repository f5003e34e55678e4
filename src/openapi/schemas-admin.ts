/**
 * Component schemas of the operational and the operators' routes: health and readiness, the
 * MCP endpoint's RFC 9728 metadata, the audit log and its refusal counts, providers and the
 * registry, API keys, and the audit drills.
 */
import {
  all,
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
  TRUST,
} from "./schema-builders.ts";
import { mode } from "./schemas-executions.ts";

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
  bundles: {
    ...strings,
    description: "Set: the key's MCP face shows only these tool bundles' tools (docs/contract.md#bundles)",
  },
  created_at: time,
  revoked_at: time,
};

export const Health = all({ status: { type: "string", const: "ok" } });
/** RFC 9728 §2, for the MCP endpoint (src/mcp/resource-server.ts). */
export const ProtectedResourceMetadata = all(
  {
    resource: {
      ...str,
      format: "uri",
      description: "This resource's identifier: /mcp's URL (MCP_RESOURCE, or the request's origin + /mcp)",
    },
    authorization_servers: {
      ...strings,
      description:
        "The runtime itself (its OAuth 2.1 authorization server, when OAUTH_KV is bound: docs/oauth.md), then the configured JWT issuer (JWT_ISSUER), when JWTs are accepted",
    },
    bearer_methods_supported: { type: "array", items: { type: "string", const: "header" } },
    resource_name: str,
  },
  ["authorization_servers"],
);
export const Readiness = all({ status: oneOfStrings(["ready", "not_ready"]) });
export const ReadinessReport = all({
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
});
export const RefusalCounts = all({
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
});
export const AuditList = all({
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
  store: {
    ...all({
      oldest_record_at: {
        ...nullable(time),
        description: "When the oldest record the audit store holds ended: earlier records are only in the archive",
      },
      retention_ms: { ...int, description: "EXECUTION_RETENTION_MS: how long a record stays in the store" },
    }),
    description: "How far back this listing reaches: the audit store (D1) holds the retention window only",
  },
  archive: {
    ...all({
      enabled: bool,
      binding: { ...nullable(str), description: "The Worker's R2 binding (AUDIT_ARCHIVE); null: archiving is off" },
      prefix: { ...nullable(str), description: "The key prefix of this listing's scope, e.g. audit/acme/" },
      keys: {
        ...nullable(str),
        description: "The keys' shape: audit/{tenant}/{yyyy}/{mm}/{dd}/{hh}/{delivery}.ndjson",
      },
    }),
    description:
      "Where every record is kept past the store's window: NDJSON objects in R2, one per consumer delivery, tenant and hour (docs/contract.md#archive)",
  },
});
export const Provider = all(
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
);
export const RegistrySummary = all({
  registry_version: int,
  providers: { type: "array", items: ref("Provider") },
  problems: strings,
  tools: int,
});
export const ProviderPatch = object(
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
);
export const ApiKeyRequest = object(
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
    bundles: {
      type: "array",
      minItems: 1,
      maxItems: 8,
      items: { type: "string", pattern: "^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$" },
      description:
        "Existing tool bundles: over MCP the key sees only their tools (/mcp their union, /mcp/{name} one of them, any other bundle 404). Every tool when left out. Not a permission: REST and the other faces are unchanged.",
    },
  },
  ["tenant", "agent"],
);
export const BootstrapRequest = object(
  {
    tenant: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "ops when left out" },
    agent: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$", description: "operator when left out" },
  },
  [],
);
export const ApiKey = all(apiKey, ["revoked_at", "bundles"]);
export const NewApiKey = all({ key: { ...str, description: "The secret: shown in this answer only." }, ...apiKey }, [
  "revoked_at",
  "bundles",
]);
export const ApiKeyList = all({ keys: { type: "array", items: ref("ApiKey") } });
export const AuditDrill = all({ armed: str });
export const SendDrillRequest = object({ count: { type: "integer", minimum: 1, maximum: 100 } }, []);
export const SendDrill = all({ armed: str, count: int });
export const BatchesDrillRequest = object(
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
);
export const BatchesDrill = all({ armed: str, count: int, tenant: str }, ["tenant"]);
export const AuditDrills = all({
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
});
