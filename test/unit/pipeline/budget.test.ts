import { describe, expect, it } from "vitest";
import type { LatencyClass } from "../../../providers/sdk/protocol.ts";
import { effectiveTimeoutMs, LATENCY_CLASS_DEFAULT_MS, remainingBudgetMs } from "../../../src/pipeline/budget.ts";

const SYSTEM_MAX = 600_000;

describe("effectiveTimeoutMs (docs/contract.md#timeouts)", () => {
  it("uses the caller's timeout when it is within every bound", () => {
    expect(
      effectiveTimeoutMs({ requestedMs: 1_234, latencyClass: "slow", toolMaxMs: 10_000, systemMaxMs: SYSTEM_MAX }),
    ).toEqual({
      timeout_ms: 1_234,
      source: "caller",
      clamped: false,
    });
  });

  it("lets the caller ask for more than the latency class default", () => {
    const choice = effectiveTimeoutMs({ requestedMs: 30_000, latencyClass: "instant", systemMaxMs: SYSTEM_MAX });
    expect(choice).toEqual({ timeout_ms: 30_000, source: "caller", clamped: false });
  });

  it("clamps the caller's timeout to the tool's maximum and says so", () => {
    expect(
      effectiveTimeoutMs({ requestedMs: 20_000, latencyClass: "fast", toolMaxMs: 8_000, systemMaxMs: SYSTEM_MAX }),
    ).toEqual({
      timeout_ms: 8_000,
      source: "caller",
      clamped: true,
    });
  });

  it("clamps the caller's timeout to the system maximum when no tool maximum is set", () => {
    expect(effectiveTimeoutMs({ requestedMs: 900_000, latencyClass: "long_running", systemMaxMs: SYSTEM_MAX })).toEqual(
      {
        timeout_ms: SYSTEM_MAX,
        source: "caller",
        clamped: true,
      },
    );
  });

  it("caps a tool maximum above the system maximum at the system maximum", () => {
    const choice = effectiveTimeoutMs({
      requestedMs: 700_000,
      latencyClass: "slow",
      toolMaxMs: 800_000,
      systemMaxMs: SYSTEM_MAX,
    });
    expect(choice).toEqual({ timeout_ms: SYSTEM_MAX, source: "caller", clamped: true });
  });

  it("does not call a request exactly at the bound clamped", () => {
    const choice = effectiveTimeoutMs({
      requestedMs: 8_000,
      latencyClass: "fast",
      toolMaxMs: 8_000,
      systemMaxMs: SYSTEM_MAX,
    });
    expect(choice).toEqual({ timeout_ms: 8_000, source: "caller", clamped: false });
  });

  it.each([
    ["instant", 100],
    ["fast", 5_000],
    ["slow", 60_000],
    ["long_running", 300_000],
  ] as [LatencyClass, number][])("defaults a %s tool to %i ms when the caller gives none", (latencyClass, expected) => {
    expect(LATENCY_CLASS_DEFAULT_MS[latencyClass]).toBe(expected);
    expect(effectiveTimeoutMs({ latencyClass, systemMaxMs: SYSTEM_MAX })).toEqual({
      timeout_ms: expected,
      source: "latency_class",
      clamped: false,
    });
  });

  it("caps a latency class default at a lower system maximum", () => {
    expect(effectiveTimeoutMs({ latencyClass: "long_running", systemMaxMs: 120_000 })).toEqual({
      timeout_ms: 120_000,
      source: "latency_class",
      clamped: true,
    });
  });

  it("caps a latency class default at a lower tool maximum", () => {
    const choice = effectiveTimeoutMs({ latencyClass: "slow", toolMaxMs: 10_000, systemMaxMs: SYSTEM_MAX });
    expect(choice).toMatchObject({ timeout_ms: 10_000, source: "latency_class" });
  });

  it("keeps the latency class default when the tool maximum is higher", () => {
    const choice = effectiveTimeoutMs({ latencyClass: "fast", toolMaxMs: 20_000, systemMaxMs: SYSTEM_MAX });
    expect(choice).toEqual({ timeout_ms: 5_000, source: "latency_class", clamped: false });
  });
});

describe("remainingBudgetMs (docs/contract.md#budgets)", () => {
  it("subtracts the time elapsed since acceptance", () => {
    expect(remainingBudgetMs(5_000, 1_000_000, 1_000_002)).toBe(4_998);
  });

  it("returns the full budget when no time has passed", () => {
    expect(remainingBudgetMs(5_000, 42, 42)).toBe(5_000);
  });

  it("returns zero, never a negative number, once the budget is spent", () => {
    expect(remainingBudgetMs(100, 0, 100)).toBe(0);
    expect(remainingBudgetMs(100, 0, 250)).toBe(0);
  });

  it("does not grow the budget when the clock reads earlier than acceptance", () => {
    expect(remainingBudgetMs(5_000, 2_000, 1_000)).toBe(5_000);
  });
});
