import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UsageReport } from "../../../src/audit/tail-reports.ts";
import {
  MAX_REPORTS_PER_MESSAGE,
  STALE_WINDOW_MS,
  USAGE_LINGER_MS,
  UsageBatch,
} from "../../../src/audit/usage-batch.ts";

const report = (n: number): UsageReport => ({ execution_id: `exec_${n}`, attempt: 1, cpu_ms: n });

describe("CPU reports batched per isolate", () => {
  let sent: { reports: UsageReport[]; expiresAt: number; by: string }[];
  const sender = (by: string) => async (reports: UsageReport[], expiresAt: number) => {
    sent.push({ reports, expiresAt, by });
  };
  beforeEach(() => {
    sent = [];
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it("sends what arrives within the window as one message, by the call that opened it", async () => {
    const batch = new UsageBatch();
    const first = batch.add([report(1)], 10, sender("first"));
    await batch.add([report(2), report(3)], 20, sender("second")); // returns at once: a window is open
    expect(sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(USAGE_LINGER_MS);
    await first;
    expect(sent).toEqual([{ reports: [report(1), report(2), report(3)], expiresAt: 20, by: "first" }]);
    expect(batch.pending).toBe(0);
  });

  it("opens a new window after a send", async () => {
    const batch = new UsageBatch();
    const one = batch.add([report(1)], 10, sender("one"));
    await vi.advanceTimersByTimeAsync(USAGE_LINGER_MS);
    await one;
    const two = batch.add([report(2)], 10, sender("two"));
    await vi.advanceTimersByTimeAsync(USAGE_LINGER_MS);
    await two;
    expect(sent.map((s) => s.by)).toEqual(["one", "two"]);
  });

  it("sends a full batch at once, from the call that filled it, in messages of at most the limit", async () => {
    const batch = new UsageBatch();
    const opener = batch.add([report(0)], 10, sender("opener"));
    const many = Array.from({ length: MAX_REPORTS_PER_MESSAGE + 5 }, (_, i) => report(i + 1));
    await batch.add(many, 10, sender("filler"));
    expect(sent.map((s) => [s.by, s.reports.length])).toEqual([
      ["filler", MAX_REPORTS_PER_MESSAGE],
      ["filler", 6],
    ]);
    await vi.advanceTimersByTimeAsync(USAGE_LINGER_MS);
    await opener;
    expect(sent).toHaveLength(2); // nothing left for the opener
  });

  it("opens a new window when the open one lost its opener, and sends what the old one held", async () => {
    let clock = 0;
    const batch = new UsageBatch(USAGE_LINGER_MS, () => clock);
    void batch.add([report(1)], 10, sender("lost")); // its invocation ends before its timer fires
    vi.clearAllTimers();
    clock += STALE_WINDOW_MS - 1;
    await batch.add([report(2)], 10, sender("early")); // still its window: it returns at once
    expect(sent).toHaveLength(0);
    clock += 1;
    const next = batch.add([report(3)], 10, sender("next"));
    await vi.advanceTimersByTimeAsync(USAGE_LINGER_MS);
    await next;
    expect(sent).toEqual([{ reports: [report(1), report(2), report(3)], expiresAt: 10, by: "next" }]);
  });

  it("sends nothing for no reports", async () => {
    const batch = new UsageBatch();
    await batch.add([], 10, sender("none"));
    await vi.advanceTimersByTimeAsync(USAGE_LINGER_MS);
    expect(sent).toHaveLength(0);
  });
});
