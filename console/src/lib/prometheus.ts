/**
 * Reading `/metrics` (Prometheus text format 0.0.4) for the operators' charts: samples, then
 * the three views the page draws — a latency histogram per tool, error rates per tool and
 * breaker states per provider and tool. Pure, so it is unit-tested under Node.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\n/g, "\n").replace(/\\(["\\])/g, "$1");
    const value = m[3] === "+Inf" ? Infinity : m[3] === "-Inf" ? -Infinity : Number(m[3]);
    samples.push({ name: m[1], labels, value });
  }
  return samples;
}

export interface HistogramBar {
  /** The bucket's upper bound in ms (Infinity for the last). */
  le_ms: number;
  /** Executions in this bucket alone (not cumulative). */
  count: number;
}

const DURATION = "tool_runtime_execution_duration_seconds";

/** Tools that have a latency histogram, by name. */
export function histogramTools(samples: Sample[]): string[] {
  return [...new Set(samples.filter((s) => s.name === `${DURATION}_bucket`).map((s) => s.labels.tool))].sort();
}

/** One tool's latency histogram over all its providers, as per-bucket counts. */
export function latencyHistogram(samples: Sample[], tool: string): HistogramBar[] {
  const cumulative = new Map<number, number>();
  for (const s of samples) {
    if (s.name !== `${DURATION}_bucket` || s.labels.tool !== tool) continue;
    const le = s.labels.le === "+Inf" ? Infinity : Number(s.labels.le) * 1000;
    cumulative.set(le, (cumulative.get(le) ?? 0) + s.value);
  }
  const bounds = [...cumulative.keys()].sort((a, b) => a - b);
  return bounds.map((le, i) => ({
    le_ms: le,
    count: cumulative.get(le)! - (i > 0 ? cumulative.get(bounds[i - 1])! : 0),
  }));
}

export interface ErrorRate {
  tool: string;
  total: number;
  failed: number;
  /** failed / total; cancellations count as neither success nor failure of the tool. */
  rate: number;
}

export function errorRates(samples: Sample[]): ErrorRate[] {
  const by = new Map<string, { total: number; failed: number }>();
  for (const s of samples) {
    if (s.name !== "tool_runtime_executions_total" || s.labels.status === "cancelled") continue;
    const row = by.get(s.labels.tool) ?? { total: 0, failed: 0 };
    row.total += s.value;
    if (s.labels.status !== "succeeded") row.failed += s.value;
    by.set(s.labels.tool, row);
  }
  return [...by.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tool, r]) => ({ tool, ...r, rate: r.total ? r.failed / r.total : 0 }));
}

export interface BreakerState {
  provider: string;
  tool: string;
  state: string;
}

export function breakerStates(samples: Sample[]): BreakerState[] {
  return samples
    .filter((s) => s.name === "tool_runtime_breaker_state" && s.value === 1)
    .map((s) => ({ provider: s.labels.provider, tool: s.labels.tool, state: s.labels.state }))
    .sort((a, b) => a.provider.localeCompare(b.provider) || a.tool.localeCompare(b.tool));
}

/** "≤ 5 ms", "≤ 1.5 s", "> 600 s": a bucket's label. */
export function bucketLabel(bar: HistogramBar, previous?: HistogramBar): string {
  const fmt = (ms: number) => (ms >= 1000 ? `${+(ms / 1000).toPrecision(3)} s` : `${+ms.toPrecision(3)} ms`);
  return bar.le_ms === Infinity ? `> ${fmt(previous?.le_ms ?? 0)}` : `≤ ${fmt(bar.le_ms)}`;
}
