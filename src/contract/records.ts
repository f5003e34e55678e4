/** What operators and listings read: the execution index, the audit log (docs/contract.md#audit) and API keys. */
import type { ApprovalDecision } from "./approvals.ts";
import type { AttemptRecord, CapabilityDecision, ExecutionResources } from "./execution-view.ts";
import type { ExecutionIdentity } from "./request.ts";

/** One row of `GET /v1/executions` (the execution index, fed by the audit pipeline). */
export interface ExecutionSummary {
  execution_id: string;
  tool: string;
  version: string;
  provider: string | null;
  /** docs/contract.md#request `project`, as the caller named it. */
  project: string | null;
  mode: string;
  /** An ExecutionStatus; typed as a string because the index may hold newer ones. */
  status: string;
  error_code: string | null;
  accepted_at: string | null;
  ended_at: string | null;
}

/** One record of `GET /v1/audit` (operators; docs/contract.md#audit). */
export interface AuditRecord extends ExecutionIdentity {
  provider: string | null;
  /** SHA-256 of the input; the input itself is never kept. */
  params_hash: string;
  mode: string;
  status: string;
  error_code: string | null;
  latency_ms: number | null;
  attempts: AttemptRecord[];
  /** The provider Workers' CPU reports so far, as in the execution's view (docs/contract.md#response). */
  resources: ExecutionResources;
  capability: CapabilityDecision;
  /** The person's decision, for a call that needed approval (null otherwise). */
  approval: ApprovalDecision | null;
  correlation_id: string | null;
  trace_id: string | null;
  accepted_at: string | null;
  ended_at: string | null;
}

/**
 * How far back the audit log reaches (docs/contract.md#archive), on every page of `GET /v1/audit`:
 * the audit store (D1) holds the retention window; the archive (R2), when bound, everything since.
 */
export interface AuditReach {
  store: {
    /** When the oldest record the store holds ended; null when it holds none. */
    oldest_record_at: string | null;
    /** EXECUTION_RETENTION_MS: how long a record stays in the store (less past AUDIT_MAX_EXECUTIONS). */
    retention_ms: number;
  };
  /** Where the archived records are: the R2 binding, the key prefix of the page's scope, the keys' shape; all null when off. */
  archive: { enabled: boolean; binding: string | null; prefix: string | null; keys: string | null };
}

/** A page of a listing: follow `next_cursor` (null on the last page). */
export interface Page {
  next_cursor: string | null;
}

/** An API key as operators see it (never its secret). */
export interface ApiKeyRecord {
  key_id: string;
  tenant: string;
  agent: string;
  capabilities: string[];
  channels: string[];
  /**
   * What the key may do inside its tenant (src/auth/roles.ts): `agent` (the default; records
   * made before roles say "tenant", read as agent), `tenant_admin`, `approver`; `admin` is an
   * operator's key.
   */
  role: "agent" | "tenant_admin" | "approver" | "admin" | "tenant";
  /** The tool bundles the key's MCP view is limited to (docs/contract.md#bundles); absent: every tool. */
  bundles?: string[];
  created_at: string;
  revoked_at?: string;
}
