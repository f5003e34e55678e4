/** Reading /metrics for the operators' charts (console/src/lib/prometheus.ts). */
import { describe, expect, it } from "vitest";
import {
  breakerStates,
  bucketLabel,
  errorRates,
  histogramTools,
  latencyHistogram,
  parseMetrics,
} from "../../../console/src/lib/prometheus.ts";

const TEXT = `# HELP tool_runtime_executions_total x
# TYPE tool_runtime_executions_total counter
tool_runtime_executions_total{tool="a",provider="p",status="succeeded",error_code=""} 3
tool_runtime_executions_total{tool="a",provider="p",status="failed",error_code="timeout"} 1
tool_runtime_executions_total{tool="a",provider="p",status="cancelled",error_code="cancelled"} 5
tool_runtime_execution_duration_seconds_bucket{tool="a",provider="p",le="0.005"} 1
tool_runtime_execution_duration_seconds_bucket{tool="a",provider="p",le="0.01"} 3
tool_runtime_execution_duration_seconds_bucket{tool="a",provider="p",le="+Inf"} 4
tool_runtime_execution_duration_seconds_bucket{tool="a",provider="q",le="0.005"} 2
tool_runtime_execution_duration_seconds_bucket{tool="a",provider="q",le="0.01"} 2
tool_runtime_execution_duration_seconds_bucket{tool="a",provider="q",le="+Inf"} 2
tool_runtime_breaker_state{provider="p",tool="a",state="closed"} 0
tool_runtime_breaker_state{provider="p",tool="a",state="open"} 1
tool_runtime_rate_limit_refusals_total{tenant="t \\"q\\"",tool="a",reason="rate"} 2
`;

describe("metrics for the operators' charts", () => {
  const samples = parseMetrics(TEXT);

  it("parses samples with escaped label values", () => {
    expect(samples.find((s) => s.name === "tool_runtime_rate_limit_refusals_total")).toEqual({
      name: "tool_runtime_rate_limit_refusals_total",
      labels: { tenant: 't "q"', tool: "a", reason: "rate" },
      value: 2,
    });
  });

  it("turns a cumulative histogram over providers into per-bucket counts", () => {
    expect(histogramTools(samples)).toEqual(["a"]);
    const bars = latencyHistogram(samples, "a");
    expect(bars).toEqual([
      { le_ms: 5, count: 3 },
      { le_ms: 10, count: 2 },
      { le_ms: Infinity, count: 1 },
    ]);
    expect(bars.map((b, i) => bucketLabel(b, bars[i - 1]))).toEqual(["≤ 5 ms", "≤ 10 ms", "> 10 ms"]);
  });

  it("computes error rates without cancellations, and reads breaker states", () => {
    expect(errorRates(samples)).toEqual([{ tool: "a", total: 4, failed: 1, rate: 0.25 }]);
    expect(breakerStates(samples)).toEqual([{ provider: "p", tool: "a", state: "open" }]);
  });
});
