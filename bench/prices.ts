/**
 * What a million executions cost at Cloudflare's published prices (docs/scale.md section 3.2,
 * marginal prices above the monthly inclusion, Workers Paid, USD), from the counts the bench
 * takes at the objects (bench/metered/). The prices are the runtime's own table
 * (src/audit/usage-prices.ts, which `GET /v1/usage` estimates with), so the two cannot drift;
 * prices move: the date is printed with them. Left out because the bench does not count them:
 * Durable Object duration and storage, D1 rows read and storage, KV reads (one per API-key call,
 * $0.50 per million), Workers CPU (the bench's CPU row is all workerd processes, an upper bound:
 * see docs/scale.md section 6).
 */
import { PRICES } from "../src/audit/usage-prices.ts";

export const PRICES_READ_ON = PRICES.as_of;

/** USD per million units. */
export const PRICE = {
  workersRequest: PRICES.per_million.workers_requests,
  durableObjectRequest: PRICES.per_million.durable_object_requests,
  durableObjectRowWritten: PRICES.per_million.durable_object_rows_written,
  /** One operation per 64 KB written, read or deleted: about three per message. */
  queueOperation: PRICES.per_million.queue_operations,
  d1RowWritten: PRICES.per_million.d1_rows_written,
} as const;

const QUEUE_OPERATIONS_PER_MESSAGE = 3;

export type Counts = Record<string, { requests: number; rows_written: number }>;

/** Per million executions, by line, from one execution's counts (the metered build's classes: Durable Objects, AuditQueue, AuditD1). */
export function costPerMillion(
  perExecution: Counts,
  edgeRequests = 1,
): { lines: Record<string, number>; total: number } {
  const lines: Record<string, number> = { "Workers requests": edgeRequests * PRICE.workersRequest };
  let doRequests = 0;
  let doRows = 0;
  for (const [cls, c] of Object.entries(perExecution)) {
    if (cls.includes(".")) continue; // per-method breakdowns repeat their class's total
    if (cls === "AuditQueue")
      lines["Queue operations"] = c.requests * QUEUE_OPERATIONS_PER_MESSAGE * PRICE.queueOperation;
    else if (cls === "AuditD1") lines["D1 rows written"] = c.rows_written * PRICE.d1RowWritten;
    else {
      doRequests += c.requests;
      doRows += c.rows_written;
    }
  }
  lines["Durable Object requests"] = doRequests * PRICE.durableObjectRequest;
  lines["Durable Object rows written"] = doRows * PRICE.durableObjectRowWritten;
  const total = Object.values(lines).reduce((s, n) => s + n, 0);
  return { lines, total };
}
