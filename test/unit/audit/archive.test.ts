/**
 * The audit archive's keys and lines (src/audit/archive.ts; docs/contract.md#archive): a tenant's
 * name is one key segment whatever it holds, a line is the record with ISO 8601 times, and
 * without a bucket the answer says archiving is off. Delivery, exactly-once and R2 itself are
 * tested in workerd (test/integration/audit-archive.test.ts).
 */
import { describe, expect, it } from "vitest";
import { archiveDescription, archiveLine, tenantPrefix } from "../../../src/audit/archive.ts";
import { auditEntryOf } from "../../../src/audit/outbox.ts";
import { executionRecord } from "../../fixtures/record.ts";

describe("the audit archive's keys and lines", () => {
  it("keeps a tenant's name to one key segment", () => {
    expect(tenantPrefix("acme")).toBe("audit/acme/");
    expect(tenantPrefix("a/b c")).toBe("audit/a%2Fb%20c/");
    expect(tenantPrefix("..")).toBe("audit/../");
  });

  it("writes a record as one JSON line with ISO 8601 times and an explicit null approval", () => {
    const record = auditEntryOf(
      executionRecord("succeeded", {
        accepted_at: Date.UTC(2026, 11, 1, 15, 3, 59, 870),
        ended_at: Date.UTC(2026, 11, 1, 15, 3, 59, 876),
      }),
    );
    const line = archiveLine(record);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line)).toEqual({
      ...record,
      approval: null,
      accepted_at: "2026-12-01T15:03:59.870Z",
      ended_at: "2026-12-01T15:03:59.876Z",
    });
  });

  it("says where a scope's records are, or that archiving is off", () => {
    expect(archiveDescription(undefined, "acme")).toEqual({ enabled: false, binding: null, prefix: null, keys: null });
  });
});
