/**
 * The document's paths of the operators' routes (some also a tenant admin's): the audit log,
 * readiness details, the registry and providers, deprecations, the bootstrap and API keys;
 * and the audit drills, failures an operator arms to prove the audit pipeline delivers anyway
 * (listed last in the document, after the upstreams).
 */
import { ref } from "./schema-builders.ts";
import { listFilters, ok, path, query, requestBody } from "./operation-parts.ts";
import { errors, OPERATOR } from "./error-responses.ts";

export const adminPaths = {
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
  "/v1/usage": {
    get: {
      operationId: "getTenantUsage",
      tags: ["operators"],
      summary: "A tenant's executions by UTC day and tool: counts by status, providers' CPU, a cost estimate",
      description:
        "A tenant admin reads its own tenant's (naming another: 403); an operator any tenant's (by default its own); other roles: 403. Only what the audit store still holds is counted: see `oldest_record_at`.",
      parameters: [
        query("from", { type: "string", format: "date" }, "First UTC day (default: six days before `to`)."),
        query("to", { type: "string", format: "date" }, "Last UTC day, inclusive (default: today); at most 92 days."),
        query("tenant", { type: "string" }, "This tenant (a tenant admin: its own only)."),
        query("tool", { type: "string" }, "Only this tool."),
      ],
      responses: { "200": ok("the usage", ref("TenantUsage")), ...errors([...OPERATOR, "invalid_request"]) },
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
};

export const drillPaths = {
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
};
