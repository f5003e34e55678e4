/** What an execution's record becomes in the audit pipeline (src/audit/messages.ts). */
import type { AuditRecord, IndexEntry } from "../src/audit/messages.ts";
import type { ExecutionRecord } from "./execution-state.ts";

export function indexEntryOf(r: ExecutionRecord): IndexEntry {
  return {
    execution_id: r.execution_id,
    tenant: r.tenant,
    tool: r.tool,
    version: r.version,
    provider: r.provider,
    mode: r.mode,
    status: r.status,
    error_code: r.error?.code ?? null,
    accepted_at: r.accepted_at,
    ended_at: r.ended_at,
  };
}

/** AIOS §5.7 step 4: who called what, with what result, how fast — parameters only as a hash. */
export function auditRecordOf(r: ExecutionRecord): AuditRecord {
  return {
    ...indexEntryOf(r),
    agent: r.agent,
    params_hash: r.params_hash,
    latency_ms: Math.max(0, (r.ended_at ?? r.accepted_at) - r.accepted_at),
    attempts: r.attempts,
    capability: r.capability,
    correlation_id: r.correlation_id,
    trace_id: r.trace_id,
  };
}
