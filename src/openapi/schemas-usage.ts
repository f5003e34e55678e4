/** The component schema of a tenant's usage (`GET /v1/usage`, docs/contract.md#usage; src/audit/tenant-usage.ts). */
import { all, int, nullable, num, str, time } from "./schema-builders.ts";

const day = { type: "string", format: "date" };
const units = {
  workers_requests: num,
  queue_operations: num,
  d1_rows_written: num,
  durable_object_requests: num,
  durable_object_rows_written: num,
};
const sums = {
  executions: all({ succeeded: int, failed: int, cancelled: int, timed_out: int, total: int }),
  paths: {
    ...all({ edge: int, object: int }),
    description: "edge: fast-path calls; object: async, streamed or keyed calls (priced apart)",
  },
  cpu_ms: { ...nullable(num), description: "The providers' reported CPU time; null: none reported a measurement" },
  estimated_cost_usd: num,
};

export const TenantUsage = all({
  tenant: str,
  from: day,
  to: day,
  oldest_record_at: {
    ...nullable(time),
    description: "When the oldest record the audit store holds ended: days before it are not held, not unused",
  },
  prices: {
    ...all({
      as_of: day,
      currency: { type: "string", const: "USD" },
      per_million: all({ ...units, cpu_ms: num }),
      per_execution: all({ edge: all(units), object: all(units) }),
    }),
    description: "USD per million units, and the units one execution uses on each path",
  },
  days: { type: "array", items: all({ day, tool: str, ...sums }) },
  totals: all(sums),
});
