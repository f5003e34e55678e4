import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../../src/audit/messages.ts";
import { auditEntryOf, MAX_MESSAGE_BYTES } from "../../../src/audit/outbox.ts";
import { executionsKept, STORED_FACTOR, STORED_FIXED_BYTES, storedBytes } from "../../../src/audit/size-bound.ts";
import { executionRecord } from "../../fixtures/record.ts";

type Finished = Extract<AuditMessage, { kind: "finished" }>;

const finished = (viewBytes: number, stored = false): Finished => {
  const record = auditEntryOf(executionRecord("succeeded"));
  return stored
    ? { kind: "finished", record, view_stored: true, retention_ms: 1 }
    : { kind: "finished", record, view: "x".repeat(viewBytes), retention_ms: 1 };
};
const usage: AuditMessage = { kind: "usage", reports: [], expires_at: 1 };

describe("the audit store's size bound in executions", () => {
  it("estimates a record's stored bytes from what its message carries", () => {
    const m = finished(600);
    const carried = JSON.stringify(m.record).length + 600;
    expect(storedBytes(m)).toBe(Math.ceil(STORED_FIXED_BYTES + STORED_FACTOR * carried));
    expect(storedBytes(finished(6_000))).toBeGreaterThan(storedBytes(m) + 5_400);
  });

  it("counts a view the edge stored itself as at least a message's limit", () => {
    expect(storedBytes(finished(0, true))).toBeGreaterThan(MAX_MESSAGE_BYTES);
  });

  it("keeps the count bound while records are small, and fewer executions as they grow", () => {
    const bound = { auditMaxExecutions: 6_000_000, auditMaxBytes: 20_000_000_000 };
    expect(executionsKept([finished(200), usage], bound)).toBe(6_000_000);
    const big = [finished(2_000), finished(4_000)];
    const each = (storedBytes(big[0]) + storedBytes(big[1])) / 2;
    expect(executionsKept(big, bound)).toBe(Math.floor(20_000_000_000 / each));
    expect(executionsKept(big, bound)).toBeLessThan(6_000_000);
  });

  it("keeps the count bound for a delivery without records, and at least one execution", () => {
    expect(executionsKept([usage], { auditMaxExecutions: 7, auditMaxBytes: 1 })).toBe(7);
    expect(executionsKept([finished(600)], { auditMaxExecutions: 7, auditMaxBytes: 1 })).toBe(1);
  });
});
