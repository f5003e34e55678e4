/**
 * What every file of examples (the `examples-*.ts` files of src/openapi/) uses: the shape of
 * an operation's examples, and the ids, times and decisions they share, so one execution
 * reads the same wherever it appears.
 */

export type Example = { value: unknown } | { named: Record<string, { summary: string; value: unknown }> };

export interface OperationExamples {
  request?: Example;
  /** By status; the operation's first 2xx answer at least. */
  responses: Record<string, Example>;
}

export const v = (value: unknown): Example => ({ value });

export const EXEC = "exec_7c3f0a9d52e14b6a8f1d0c2e9b47a6d3e5f8091a2b3c4d5e6f708192a3b4c5d6";
export const EXEC_EDGE = "exec_e4f1c9a07b2d3e6f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2";
export const AT = "2026-12-01T15:04:05.123Z";
export const LATER = "2026-12-01T15:04:05.161Z";
const ALIGNED = {
  verdict: "aligned",
  mode: "async",
  reason: "evaluating an expression is what a math agent does",
  profile: "dev-agent",
};
export const CAPABILITY = {
  level1: { reachable: ["std"] },
  level2: ALIGNED,
  level3: { required: null, granted_by: null },
};
export const RESOURCES = { cpu_ms: 1.8, peak_memory_mb: null, cpu_report: "measured" };
