/**
 * Examples of the operational and the operators' routes (src/openapi/paths-operations.ts,
 * src/openapi/paths-admin.ts): this document, health, readiness, metrics, the audit log,
 * providers, deprecations, API keys and the audit drills.
 */
import { AT, CAPABILITY, EXEC_EDGE, LATER, type OperationExamples, RESOURCES, v } from "./examples-shared.ts";
import { succeeded } from "./examples-executions.ts";
import { estimateCost, PRICES } from "../audit/usage-prices.ts";

const provider = {
  name: "lab",
  binding: "PROVIDER_LAB",
  trust: "community",
  seq: 7,
  reachable: true,
  tools: 9,
  disabled: false,
  max_concurrency: 1,
};
const key = {
  key_id: "key_Xq3vN8bT0kLm",
  tenant: "acme",
  agent: "billing-bot",
  capabilities: ["network:api.example.com"],
  channels: ["std"],
  role: "tenant",
  created_at: AT,
};
const deprecation = { sunset: "2027-03-01T00:00:00.000Z", replacement: "math.evaluate@2.0.0", deprecated_at: AT };
const protectedResource = {
  resource: "https://tools.example.com/mcp",
  authorization_servers: ["https://auth.example.com"],
  bearer_methods_supported: ["header"],
  resource_name: "Tool Runtime",
};

/** One day's use of one tool: the priced sums of GET /v1/usage. */
const usageSums = {
  executions: { succeeded: 118, failed: 3, cancelled: 1, timed_out: 0, total: 122 },
  paths: { edge: 120, object: 2 },
  cpu_ms: 212.4,
  estimated_cost_usd: estimateCost(PRICES, 120, 2, 212.4),
};

export const adminExamples: Record<string, OperationExamples> = {
  getOpenApiDocument: {
    responses: {
      "200": v({
        openapi: "3.1.0",
        info: { title: "Tool Runtime", version: "1.0.0" },
        paths: { "/v1/tools": { get: { operationId: "listTools" } } },
      }),
    },
  },
  getProtectedResourceMetadata: { responses: { "200": v(protectedResource) } },
  getMcpProtectedResourceMetadata: { responses: { "200": v(protectedResource) } },
  getHealth: { responses: { "200": v({ status: "ok" }) } },
  getReadiness: { responses: { "200": v({ status: "ready" }) } },
  getMetrics: {
    responses: {
      "200": v(
        '# HELP tool_runtime_executions_total Executions that ended, by tool and status.\n# TYPE tool_runtime_executions_total counter\ntool_runtime_executions_total{tool="math.evaluate",status="succeeded"} 118\n',
      ),
    },
  },
  listAuditRecords: {
    responses: {
      "200": v({
        records: [
          {
            execution_id: EXEC_EDGE,
            tenant: "acme",
            agent: "billing-bot",
            project: null,
            face: "rest",
            tool: "math.evaluate",
            version: "1.0.0",
            provider: "std",
            params_hash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            mode: "sync",
            status: "succeeded",
            error_code: null,
            latency_ms: 6,
            attempts: succeeded.attempts,
            resources: RESOURCES,
            capability: CAPABILITY,
            approval: null,
            correlation_id: "req-7781",
            trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
            accepted_at: "2026-12-01T15:03:59.870Z",
            ended_at: "2026-12-01T15:03:59.876Z",
          },
        ],
        next_cursor: null,
        store: { oldest_record_at: "2026-11-30T15:04:05.123Z", retention_ms: 86400000 },
        archive: {
          enabled: true,
          binding: "AUDIT_ARCHIVE",
          prefix: "audit/acme/",
          keys: "audit/{tenant}/{yyyy}/{mm}/{dd}/{hh}/{delivery}.ndjson",
        },
      }),
    },
  },
  getReadinessReport: {
    responses: {
      "200": v({
        status: "ready",
        checked_at: AT,
        registry_version: 12,
        tools: 31,
        providers: [
          { name: "std", reachable: true },
          { name: "community", reachable: true },
        ],
        audit_db: { ready: true },
        problems: [],
      }),
    },
  },
  refreshRegistry: {
    responses: { "200": v({ registry_version: 13, providers: [provider], problems: [], tools: 31 }) },
  },
  updateProvider: { request: v({ max_concurrency: 1 }), responses: { "200": v(provider) } },
  resetProviderHealth: { responses: { "200": v(provider) } },
  deprecateToolVersion: {
    request: v({ sunset: "2027-03-01T00:00:00.000Z", replacement: "math.evaluate@2.0.0" }),
    responses: { "200": v({ tool: "math.evaluate", version: "1.0.0", deprecation, active_version: "2.0.0" }) },
  },
  undeprecateToolVersion: {
    responses: { "200": v({ tool: "math.evaluate", version: "1.0.0", deprecation: null, active_version: "2.0.0" }) },
  },
  bootstrapOperator: {
    request: v({ tenant: "ops", agent: "first-operator" }),
    responses: {
      "201": v({
        key: "trt_3sX9vQ2mKp7wLr4tYb8nZc1dF6gH0jK5lM2nB7vC9xQ",
        key_id: "key_Jd9sK4mVx1Tb",
        tenant: "ops",
        agent: "first-operator",
        capabilities: [],
        channels: ["*"],
        role: "admin",
        created_at: AT,
      }),
    },
  },
  createApiKey: {
    request: v({ tenant: "acme", agent: "billing-bot", capabilities: ["network:api.example.com"], channels: ["std"] }),
    responses: { "201": v({ key: "trt_Hq8ZkVw2Lr6pXn3tYb9mCd4sA1eF5gJ7kN0qR3uW8yZ", ...key }) },
  },
  listApiKeys: {
    responses: {
      "200": v({
        keys: [key, { ...key, key_id: "key_p2Rz7YcW5hQa", agent: "cleanup-bot", role: "approver", revoked_at: LATER }],
      }),
    },
  },
  revokeApiKey: { responses: { "200": v({ ...key, revoked_at: LATER }) } },
  getTenantUsage: {
    responses: {
      "200": v({
        tenant: "acme",
        from: "2026-11-25",
        to: "2026-12-01",
        oldest_record_at: "2026-11-30T15:04:05.123Z",
        prices: PRICES,
        days: [{ day: "2026-12-01", tool: "math.evaluate", ...usageSums }],
        totals: usageSums,
      }),
    },
  },
  listRefusalCounts: {
    responses: {
      "200": v({ refusals: [{ tenant: "acme", tool: "math.evaluate", reason: "rate", count: 12 }], truncated: false }),
    },
  },
  armAuditDrill: { responses: { "200": v({ armed: "fail_next_audit_batch" }) } },
  armAuditBatchesDrill: {
    request: v({ count: 3, tenant: "acme" }),
    responses: { "200": v({ armed: "fail_audit_batches", count: 3, tenant: "acme" }) },
  },
  getAuditDrills: {
    responses: {
      "200": v({
        fail_next_batch: { armed: false, fired: 1, last_batch_size: 12, last_written: 6 },
        fail_next_send: { armed: 0, failed: 2 },
        fail_batches: { armed: 0, tenants: { acme: 3 } },
      }),
    },
  },
  armAuditSendDrill: { request: v({ count: 2 }), responses: { "200": v({ armed: "fail_next_audit_send", count: 2 }) } },
};
