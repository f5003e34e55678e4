/** Latency histograms and error rates per tool, and breaker states, from `/metrics`. */
import { useMemo, useState } from "preact/hooks";
import { BarChart } from "../../components/bar-chart.tsx";
import { percent } from "../../components/bits.tsx";
import { Problem } from "../../components/problem.tsx";
import {
  breakerStates,
  bucketLabel,
  errorRates,
  histogramTools,
  latencyHistogram,
  parseMetrics,
} from "../../lib/prometheus.ts";
import { useLoad } from "../../use-load.ts";

export function Health() {
  const { data: text, error, reload, loading } = useLoad((c) => c.metrics(), []);
  const samples = useMemo(() => (text ? parseMetrics(text) : []), [text]);
  const tools = histogramTools(samples);
  const [picked, setPicked] = useState<string | null>(null);
  const tool = picked && tools.includes(picked) ? picked : tools[0];
  const bars = tool ? trim(latencyHistogram(samples, tool)) : [];
  const rates = errorRates(samples);
  const breakers = breakerStates(samples);
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Latency, errors and breakers</h2>
      <div class="row wrap">
        <div class="field">
          <label for="latency-tool">Latency of tool</label>
          <select
            id="latency-tool"
            value={tool ?? ""}
            onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}
            disabled={tools.length === 0}
          >
            {tools.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </div>
        <button type="button" onClick={reload} disabled={loading}>
          Refresh metrics
        </button>
      </div>
      <Problem error={error} />
      {text !== null && tools.length === 0 && (
        <p class="muted">No execution has ended yet, so there is no latency to show.</p>
      )}
      {tool && (
        <BarChart
          id="latency-chart"
          title={`Latency of ${tool} (all providers)`}
          category="Latency bucket"
          unit="executions"
          labels={bars.map((b, i) => bucketLabel(b, bars[i - 1]))}
          values={bars.map((b) => b.count)}
        />
      )}
      {rates.length > 0 && (
        <BarChart
          id="error-chart"
          title="Error rate per tool (cancellations excluded)"
          category="Tool"
          unit="error rate"
          labels={rates.map((r) => r.tool)}
          values={rates.map((r) => r.rate)}
          format={(v) => percent(v)}
        />
      )}
      <table class="data">
        <caption>Circuit breakers by provider and tool</caption>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Tool</th>
            <th scope="col">Breaker</th>
          </tr>
        </thead>
        <tbody>
          {breakers.length === 0 && (
            <tr>
              <td colSpan={3} class="muted">
                No provider has served a call yet, so no breaker has a state.
              </td>
            </tr>
          )}
          {breakers.map((b) => (
            <tr key={`${b.provider}/${b.tool}`}>
              <th scope="row">{b.provider}</th>
              <td>{b.tool}</td>
              <td>
                <span class={`breaker breaker-${b.state}`}>{b.state.replace("_", "-")}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** Drops the empty buckets before the first and after the last filled one (one kept each side). */
function trim<T extends { count: number }>(bars: T[]): T[] {
  const first = bars.findIndex((b) => b.count > 0);
  if (first < 0) return bars.slice(0, 1);
  const last = bars.length - 1 - [...bars].reverse().findIndex((b) => b.count > 0);
  return bars.slice(Math.max(0, first - 1), Math.min(bars.length, last + 2));
}
