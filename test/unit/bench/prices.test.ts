/**
 * The bench's price table (bench/prices.ts, docs/scale.md section 6): counted requests, rows and
 * messages per execution times the published prices, per million executions.
 */
import { describe, expect, it } from "vitest";
import { costPerMillion, PRICE } from "../../../bench/prices.ts";

describe("cost per million executions", () => {
  it("prices each counted line: Durable Object requests and rows, three queue operations per message, D1 rows, one Workers request", () => {
    const { lines, total } = costPerMillion({
      ExecutionObject: { requests: 1, rows_written: 2 },
      TenantObject: { requests: 2, rows_written: 0 },
      "TenantObject.admit": { requests: 1, rows_written: 0 },
      AuditQueue: { requests: 1, rows_written: 0 },
      AuditD1: { requests: 0.1, rows_written: 6.85 },
    });
    expect(lines["Durable Object requests"]).toBeCloseTo(3 * PRICE.durableObjectRequest);
    expect(lines["Durable Object rows written"]).toBeCloseTo(2 * PRICE.durableObjectRowWritten);
    expect(lines["Queue operations"]).toBeCloseTo(3 * PRICE.queueOperation);
    expect(lines["D1 rows written"]).toBeCloseTo(6.85 * PRICE.d1RowWritten);
    expect(lines["Workers requests"]).toBeCloseTo(PRICE.workersRequest);
    expect(total).toBeCloseTo(0.45 + 2 + 1.2 + 6.85 + 0.3);
  });
});
