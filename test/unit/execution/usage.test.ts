import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../../src/contract.ts";
import { toView } from "../../../src/execution/record.ts";
import { attemptsWithUsage, resourcesOf, withUsage } from "../../../src/execution/usage.ts";
import { executionRecord } from "../../fixtures/record.ts";

const attempt = (n: number): AttemptRecord => ({
  attempt: n,
  provider: "lab",
  outcome: "succeeded",
  started_ms: 0,
  duration_ms: 5,
  provider_latency_ms: 3,
  cpu_ms: null,
});

describe("CPU reports in the view (docs/contract.md#response resources)", () => {
  it("says none while no report has arrived, and memory is never reported", () => {
    expect(resourcesOf([])).toEqual({ cpu_ms: null, peak_memory_mb: null, cpu_report: "none" });
  });

  it("sums the measured attempts and shows each attempt's own figure", () => {
    const view = toView(executionRecord("succeeded", { provider: "lab", attempts: [attempt(1), attempt(2)] }), [
      { attempt: 1, cpu_ms: 4 },
      { attempt: 2, cpu_ms: 2.5 },
    ]);
    expect(view.execution.resources).toEqual({ cpu_ms: 6.5, peak_memory_mb: null, cpu_report: "measured" });
    expect(view.attempts!.map((a) => a.cpu_ms)).toEqual([4, 2.5]);
  });

  it("says unmeasured when reports came without a measurement (wrangler dev)", () => {
    const view = toView(executionRecord("succeeded", { attempts: [attempt(1)] }), [{ attempt: 1, cpu_ms: null }]);
    expect(view.execution.resources).toEqual({ cpu_ms: null, peak_memory_mb: null, cpu_report: "unmeasured" });
    expect(view.attempts![0].cpu_ms).toBeNull();
  });

  it("leaves an attempt whose report has not arrived at null while others are measured", () => {
    const view = withUsage(toView(executionRecord("failed", { attempts: [attempt(1), attempt(2)] })), [
      { attempt: 2, cpu_ms: 1 },
    ]);
    expect(view.attempts!.map((a) => a.cpu_ms)).toEqual([null, 1]);
    expect(view.execution.resources).toMatchObject({ cpu_ms: 1, cpu_report: "measured" });
  });

  it("counts a report of an attempt the record does not list yet (a running execution)", () => {
    expect(withUsage(toView(executionRecord("running")), [{ attempt: 1, cpu_ms: 9 }]).execution.resources.cpu_ms).toBe(
      9,
    );
  });

  it("fills the fields a record written before them lacks", () => {
    const old = { attempt: 1, provider: "lab", outcome: "succeeded", started_ms: 0, duration_ms: 5 } as AttemptRecord;
    expect(attemptsWithUsage([old], [])).toEqual([{ ...old, provider_latency_ms: null, cpu_ms: null }]);
  });

  it("replaces what a stored view said with what the reports say now", () => {
    const stored = toView(executionRecord("succeeded", { attempts: [attempt(1)] }));
    expect(withUsage(stored, [{ attempt: 1, cpu_ms: 3 }]).execution.resources).toEqual({
      cpu_ms: 3,
      peak_memory_mb: null,
      cpu_report: "measured",
    });
  });
});
