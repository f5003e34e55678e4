/**
 * Reading the audit database: the execution index (`GET /v1/executions`, the caller's
 * tenant only) and the audit log (`GET /v1/audit`, operators), with the same filters and
 * keyset pagination — a cursor names the last row seen, so pages never overlap or skip.
 */
import {
  EXECUTION_STATUSES,
  type AuditReach,
  type AuditRecord,
  type CapabilityDecision,
  type ExecutionSummary,
  type Face,
} from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { attemptsWithUsage, resourcesOf, type AttemptUsage } from "../execution/usage.ts";
import { loadConfig } from "../config.ts";
import { archiveDescription } from "./archive.ts";
import { mergeUsage } from "./records.ts";
import { auditShards, mergePages, tenantShard } from "./shards.ts";

export interface ListFilters {
  tenant?: string;
  /** Only this agent's (an agent's own executions: src/auth/roles.ts). */
  agent?: string;
  tool?: string;
  status?: string;
  /** docs/contract.md#request `project`, as callers named it. */
  project?: string;
  /** Epoch ms, inclusive / exclusive. */
  since?: number;
  until?: number;
  limit: number;
  cursor?: { t: number; id: string };
}

const STATUSES = new Set<string>(EXECUTION_STATUSES);
export const MAX_PAGE = 100;

/** Reads `tool`, `status`, `since`, `until` (ISO 8601), `limit` and `cursor` from a query string. */
export function parseFilters(q: (name: string) => string | undefined): ListFilters {
  const time = (name: string) => {
    const v = q(name);
    if (v === undefined) return undefined;
    const t = Date.parse(v);
    if (Number.isNaN(t))
      throw new RuntimeError("invalid_request", `${name} must be an ISO 8601 date-time`, { field: name });
    return t;
  };
  const status = q("status");
  if (status !== undefined && !STATUSES.has(status))
    throw new RuntimeError("invalid_request", `status must be one of ${[...STATUSES].join(", ")}`, { field: "status" });
  const limitRaw = q("limit");
  const limit = limitRaw === undefined ? 50 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE)
    throw new RuntimeError("invalid_request", `limit must be an integer from 1 to ${MAX_PAGE}`, { field: "limit" });
  const project = q("project");
  if (project !== undefined && (project.length === 0 || project.length > 128))
    throw new RuntimeError("invalid_request", "project must be 1-128 characters", { field: "project" });
  return {
    tool: q("tool"),
    status,
    project,
    since: time("since"),
    until: time("until"),
    limit,
    cursor: decodeCursor(q("cursor")),
  };
}

function decodeCursor(raw: string | undefined): ListFilters["cursor"] {
  if (raw === undefined) return undefined;
  try {
    const [t, id] = JSON.parse(atob(raw.replace(/-/g, "+").replace(/_/g, "/")));
    if (typeof t === "number" && typeof id === "string") return { t, id };
  } catch {
    /* fall through */
  }
  throw new RuntimeError("invalid_request", "cursor is not one this endpoint gave out", { field: "cursor" });
}

function encodeCursor(t: number, id: string): string {
  return btoa(JSON.stringify([t, id]))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

function where(f: ListFilters, timeColumn: string): { sql: string; binds: unknown[] } {
  const parts: string[] = [];
  const binds: unknown[] = [];
  const add = (sql: string, ...v: unknown[]) => {
    parts.push(sql);
    binds.push(...v);
  };
  if (f.tenant !== undefined) add("tenant = ?", f.tenant);
  if (f.agent !== undefined) add("agent = ?", f.agent);
  if (f.tool !== undefined) add("tool = ?", f.tool);
  if (f.status !== undefined) add("status = ?", f.status);
  if (f.project !== undefined) add("project = ?", f.project);
  if (f.since !== undefined) add(`${timeColumn} >= ?`, f.since);
  if (f.until !== undefined) add(`${timeColumn} < ?`, f.until);
  if (f.cursor)
    add(`(${timeColumn} < ? OR (${timeColumn} = ? AND execution_id < ?))`, f.cursor.t, f.cursor.t, f.cursor.id);
  return { sql: parts.length ? `WHERE ${parts.join(" AND ")}` : "", binds };
}

/**
 * One page, newest first, from the shards that may hold it (one tenant's: its shard; everyone's:
 * every shard, merged by src/audit/shards.ts `mergePages`, so the page and its cursor are those
 * one database holding every row would give).
 */
async function page<T extends { execution_id: string }>(
  dbs: readonly D1Database[],
  from: string,
  timeColumn: string,
  f: ListFilters,
  columns: string,
  map: (row: Record<string, unknown>) => T,
) {
  const w = where(f, timeColumn);
  const pages = await Promise.all(
    dbs.map(async (db) => {
      const rows = await db
        .prepare(`SELECT ${columns} FROM ${from} ${w.sql} ORDER BY ${timeColumn} DESC, execution_id DESC LIMIT ?`)
        .bind(...w.binds, f.limit + 1)
        .all<Record<string, unknown>>();
      return rows.results;
    }),
  );
  const { items, more } = mergePages(pages, f.limit, (r) => ({
    t: r[timeColumn] as number,
    id: r.execution_id as string,
  }));
  const last = items.at(-1);
  return {
    items: items.map(map),
    next_cursor: more && last ? encodeCursor(last[timeColumn] as number, last.execution_id as string) : null,
  };
}

/** The shards a read with these filters asks: the tenant's, or every one for a read across tenants. */
export function shardsFor(env: Env, f: Pick<ListFilters, "tenant">): D1Database[] {
  return f.tenant === undefined ? auditShards(env) : [tenantShard(env, f.tenant)];
}

const iso = (t: unknown) => (typeof t === "number" ? new Date(t).toISOString() : null);

/** One row of the execution index (`GET /v1/executions`). */
export type IndexItem = ExecutionSummary;

export async function listExecutions(
  env: Env,
  f: ListFilters & { tenant: string },
): Promise<{ executions: IndexItem[]; next_cursor: string | null }> {
  const columns = "execution_id, tool, version, provider, project, mode, status, error_code, accepted_at, ended_at";
  const { items, next_cursor } = await page(
    shardsFor(env, f),
    "executions",
    "accepted_at",
    f,
    columns,
    (r): ExecutionSummary => ({
      execution_id: r.execution_id as string,
      tool: r.tool as string,
      version: r.version as string,
      provider: (r.provider as string) || null,
      project: (r.project as string | null) ?? null,
      mode: r.mode as string,
      status: r.status as string,
      error_code: (r.error_code as string) || null,
      accepted_at: iso(r.accepted_at),
      ended_at: iso(r.ended_at),
    }),
  );
  return { executions: items, next_cursor };
}

export async function listAudit(env: Env, f: ListFilters) {
  // A read-only call's intent verdict may have arrived after its record (src/pipeline/intent.ts).
  // So may its providers' CPU reports (src/audit/tail.ts). Each is on the record's row, or in a
  // table of its own when it arrived before the record or was written before it moved onto the
  // row (migrations/0003_audit_rows_per_execution.sql); so is the approval.
  const from = `(SELECT e.execution_id, e.tenant, e.agent, e.project, e.face, e.tool, e.version, e.provider, e.params_hash,
      e.mode, e.status, e.error_code, e.latency_ms, e.attempts, e.capability, e.correlation_id, e.trace_id, e.accepted_at,
      e.ended_at, e.usage_json, COALESCE(e.intent_json, i.decision) AS late_intent, COALESCE(e.approval_json, a.approval) AS approval,
      (SELECT json_group_array(json_object('attempt', u.attempt, 'cpu_ms', u.cpu_ms)) FROM usage u WHERE u.execution_id = e.execution_id) AS usage
    FROM executions e LEFT JOIN intents i ON i.execution_id = e.execution_id LEFT JOIN approvals a ON a.execution_id = e.execution_id)`;
  const { items, next_cursor } = await page(shardsFor(env, f), from, "ended_at", f, "*", (r): AuditRecord => ({
    execution_id: r.execution_id as string,
    tenant: r.tenant as string,
    agent: r.agent as string,
    project: (r.project as string | null) ?? null,
    face: r.face as Face,
    tool: r.tool as string,
    version: r.version as string,
    provider: (r.provider as string) || null,
    params_hash: r.params_hash as string,
    mode: r.mode as string,
    status: r.status as string,
    error_code: (r.error_code as string) || null,
    latency_ms: r.latency_ms as number,
    attempts: attemptsWithUsage(JSON.parse(r.attempts as string), usageOf(r)),
    resources: resourcesOf(usageOf(r)),
    capability: withLateIntent(JSON.parse(r.capability as string), r.late_intent as string | null),
    approval: typeof r.approval === "string" ? JSON.parse(r.approval) : null,
    correlation_id: r.correlation_id as string | null,
    trace_id: r.trace_id as string | null,
    accepted_at: iso(r.accepted_at),
    ended_at: iso(r.ended_at),
  }));
  return { records: items, next_cursor };
}

/**
 * How far back the audit log reaches for a scope (docs/contract.md#archive): when the store's
 * oldest record ended (one read along executions_by_end per shard asked: the tenant's, or every
 * one), and
 * the archive's place for the scope's records.
 */
export async function auditReach(env: Env, tenant: string | undefined): Promise<AuditReach> {
  const oldest = await Promise.all(
    shardsFor(env, { tenant }).map((db) =>
      db.prepare("SELECT MIN(ended_at) AS t FROM executions").first<{ t: number | null }>(),
    ),
  );
  const ts = oldest.map((o) => o?.t).filter((t): t is number => typeof t === "number");
  const bucket: R2Bucket | undefined = env.AUDIT_ARCHIVE;
  return {
    store: {
      oldest_record_at: ts.length > 0 ? new Date(Math.min(...ts)).toISOString() : null,
      retention_ms: loadConfig(env).retentionMs,
    },
    archive: archiveDescription(bucket, tenant),
  };
}

function withLateIntent(capability: CapabilityDecision, late: string | null): CapabilityDecision {
  return late ? { ...capability, level2: JSON.parse(late) } : capability;
}

/** The CPU reports the audit query gathered for a row (see listAudit). */
function usageOf(row: Record<string, unknown>): AttemptUsage[] {
  return mergeUsage(JSON.parse((row.usage as string | null) ?? "[]"), row.usage_json as string | null);
}
