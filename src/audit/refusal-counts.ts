/**
 * Rate-limit refusals by tenant, for operators (`GET /v1/audit/refusals`). The metric
 * `tool_runtime_rate_limit_refusals_total` is labelled by tool and reason only: a label per
 * tenant would make one series per tenant, without bound, in every scrape. The `refusals`
 * table keeps the tenant (src/audit/refusal-counter.ts sends it), so the per-tenant answer is
 * a query, asked when someone wants it.
 */
import { RuntimeError } from "../errors.ts";

/** One row: how many calls of `tenant` to `tool` were refused for `reason`, since the table began. */
export interface RefusalCount {
  tenant: string;
  tool: string;
  reason: string;
  count: number;
}

/** At most this many rows in one answer; `truncated` says when there were more (narrow by tenant or tool). */
export const MAX_REFUSAL_ROWS = 1_000;

export async function listRefusals(
  db: D1Database,
  f: { tenant?: string; tool?: string },
): Promise<{ refusals: RefusalCount[]; truncated: boolean }> {
  for (const [field, value] of Object.entries(f)) {
    if (value !== undefined && (value.length === 0 || value.length > 256))
      throw new RuntimeError("invalid_request", `${field} must be 1 to 256 characters`, { field });
  }
  const where: string[] = [];
  const args: string[] = [];
  if (f.tenant !== undefined) (where.push("tenant = ?"), args.push(f.tenant));
  if (f.tool !== undefined) (where.push("tool = ?"), args.push(f.tool));
  const sql = `SELECT tenant, tool, reason, n FROM refusals${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY tenant, tool, reason LIMIT ?`;
  const { results } = await db
    .prepare(sql)
    .bind(...args, MAX_REFUSAL_ROWS + 1)
    .all<{ tenant: string; tool: string; reason: string; n: number }>();
  const rows = results
    .slice(0, MAX_REFUSAL_ROWS)
    .map((r) => ({ tenant: r.tenant, tool: r.tool, reason: r.reason, count: Number(r.n) }));
  return { refusals: rows, truncated: results.length > MAX_REFUSAL_ROWS };
}
