/**
 * Component schemas of the operators' routes: the audit log and its refusal counts, providers
 * and the registry, and the audit drills.
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
});
