/**
 * Where a fast-path execution's finished record lives: the audit store, on its record's row
 * (`executions.view_json`, written by the queue consumer from the finished message) or, when the
 * view is too large for a message, in the `views` table, written by the edge itself (as were the
 * views of records written before the view moved onto the row); kept for the retention window. GET /v1/executions/{id} reads it. The
 * isolate that ran the call also keeps recent views in memory, so a GET that lands there right
 * after the answer does not wait for the queue. One that lands elsewhere reads the store once;
 * when the record is not there yet and the id is young enough for it to be on its way through
 * the queue (handed to it before the id reached anyone; the consumer's batch waits up to 1 s),
 * it reads once more after STORE_RETRY_MS, and that is all: a miss costs one read, or two for a
 * young id. A forged id never gets here (its seal fails: src/execution/ids.ts).
 */
import type { ExecutionView } from "../contract.ts";
import { fromJson, toJson } from "../codec/bytes.ts";
import { withUsage, type AttemptUsage } from "../execution/usage.ts";
import { isTerminal } from "../execution/record.ts";
import { inScope, type ExecutionScope } from "../auth/roles.ts";
import { tenantShard } from "./shards.ts";

/** How long a GET for a young fast-path id waits before its one second read of the store. */
export const STORE_RETRY_MS = 1_500;
/** How long after its call's budget could have ended a record may still be in the queue. */
const IN_QUEUE_MS = 10_000;
/** Recent views kept in this isolate's memory, by total size. */
const MEMORY_BYTES = 8 * 1024 * 1024;

const recent = new Map<string, { tenant: string; agent: string; json: string; expires: number }>();
let recentBytes = 0;

export function rememberView(tenant: string, agent: string, view: ExecutionView, expires: number): void {
  const json = toJson(view);
  if (json.length > MEMORY_BYTES / 8) return;
  recent.set(view.execution_id, { tenant, agent, json, expires });
  recentBytes += json.length;
  for (const [id, v] of recent) {
    if (recentBytes <= MEMORY_BYTES) break;
    recent.delete(id);
    recentBytes -= v.json.length;
  }
}

export async function storeView(
  env: Env,
  v: { execution_id: string; tenant: string; view: string; expires_at: number },
): Promise<void> {
  await tenantShard(env, v.tenant)
    .prepare("INSERT OR IGNORE INTO views (execution_id, tenant, view, expires_at) VALUES (?, ?, ?, ?)")
    .bind(v.execution_id, v.tenant, v.view, v.expires_at)
    .run();
}

/**
 * A fast-path execution's view for a caller's scope, or undefined (unknown, expired, another
 * tenant's or, for a caller that sees only its own, another agent's), with the providers' CPU
 * reports that have reached the store since it was written.
 */
export async function readEdgeView(
  env: Env,
  scope: ExecutionScope,
  executionId: string,
  acceptedAt: number,
  maxRunMs: number,
): Promise<ExecutionView | undefined> {
  const view = await findEdgeView(env, scope, executionId, acceptedAt, maxRunMs);
  return view && withUsage(view, await readUsage(tenantShard(env, scope.tenant), executionId));
}

/**
 * An execution object's view with its CPU reports, which the audit store holds (src/audit/tail.ts
 * sends them there, not to the object). Read once the execution has ended and a provider was
 * called; a view that already shows reports (an object kept them before they moved to the
 * store) stands as the object gave it. One read of the tenant's shard, by primary key.
 */
export async function withStoredUsage(env: Env, tenant: string, view: ExecutionView): Promise<ExecutionView> {
  if (!isTerminal(view.status) || !view.attempts?.length || view.execution.resources.cpu_report !== "none") return view;
  const usage = await readUsage(tenantShard(env, tenant), view.execution_id);
  return usage.length > 0 ? withUsage(view, usage) : view;
}

/**
 * The CPU reports of an execution's attempts in the audit store (src/audit/tail.ts): on its
 * record's row, and in `usage` those that arrived before the record (or were written before
 * reports moved onto the row).
 */
export async function readUsage(db: D1Database, executionId: string): Promise<AttemptUsage[]> {
  const rows = await db
    .prepare(
      `SELECT attempt, cpu_ms, 0 AS o FROM usage WHERE execution_id = ?1
       UNION ALL
       SELECT json_extract(j.value, '$.attempt'), json_extract(j.value, '$.cpu_ms'), 1
         FROM executions e, json_each(e.usage_json) j WHERE e.execution_id = ?1
       ORDER BY o, attempt`,
    )
    .bind(executionId)
    .all<AttemptUsage>();
  return mergeUsage(rows.results, null);
}

/** An execution's reports from `usage` rows and its row's `usage_json`, one per attempt (the first kept stands), by attempt. */
export function mergeUsage(kept: readonly AttemptUsage[], onRow: string | null): AttemptUsage[] {
  const byAttempt = new Map<number, AttemptUsage>();
  for (const u of [...kept, ...(onRow ? (JSON.parse(onRow) as AttemptUsage[]) : [])])
    if (!byAttempt.has(u.attempt)) byAttempt.set(u.attempt, { attempt: u.attempt, cpu_ms: u.cpu_ms ?? null });
  return [...byAttempt.values()].sort((a, b) => a.attempt - b.attempt);
}

async function findEdgeView(
  env: Env,
  scope: ExecutionScope,
  executionId: string,
  acceptedAt: number,
  maxRunMs: number,
): Promise<ExecutionView | undefined> {
  const now = Date.now();
  const hit = recent.get(executionId);
  if (hit && hit.expires > now)
    return inScope(scope, hit.tenant, hit.agent) ? fromJson<ExecutionView>(hit.json) : undefined;
  // The agent is the audit record's, on the same row as the view — or written after it, for a
  // view too large for a message (src/execution/edge-run.ts): a caller that sees only its own
  // agent's treats a view without its agent yet like one not stored yet.
  const read = async () => {
    const row = await tenantShard(env, scope.tenant)
      .prepare(
        `SELECT tenant, view, agent FROM (
         SELECT tenant, view_json AS view, agent, 0 AS o FROM executions WHERE execution_id = ?1 AND view_json IS NOT NULL AND expires_at > ?2
         UNION ALL
         SELECT v.tenant, v.view, e.agent, 1 FROM views v LEFT JOIN executions e ON e.execution_id = v.execution_id WHERE v.execution_id = ?1 AND v.expires_at > ?2)
       ORDER BY o LIMIT 1`,
      )
      .bind(executionId, Date.now())
      .first<{ tenant: string; view: string; agent: string | null }>();
    if (!row || (row.agent === null && scope.agent !== null && row.tenant === scope.tenant)) return null;
    return inScope(scope, row.tenant, row.agent) ? fromJson<ExecutionView>(row.view) : undefined;
  };
  const first = await read();
  if (first !== null) return first;
  // Only an id whose call may have just finished can still be on its way to the store.
  if (now - acceptedAt > maxRunMs + IN_QUEUE_MS) return undefined;
  await new Promise((r) => setTimeout(r, STORE_RETRY_MS));
  return (await read()) ?? undefined;
}
