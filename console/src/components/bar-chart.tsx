/**
 * A bar chart drawn by uPlot (small, fast, no dependencies), with the same numbers as a
 * table for keyboards and screen readers: the canvas is decoration, the table is the data.
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface BarChartProps {
  id: string;
  title: string;
  labels: string[];
  values: number[];
  /** The y axis' unit, and the table's column heading. */
  unit: string;
  /** The table's first column heading. */
  category: string;
  format?: (v: number) => string;
}

export function BarChart({ id, title, labels, values, unit, category, format = String }: BarChartProps) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el || labels.length === 0) return;
    const xs = labels.map((_, i) => i);
    const chart = new uPlot(
      {
        width: Math.max(320, Math.min(el.clientWidth || 640, 900)),
        height: 240,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, range: [-0.6, labels.length - 0.4] },
          y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.1)] },
        },
        axes: [
          {
            splits: () => xs,
            values: (_u, splits) => splits.map((i) => labels[i] ?? ""),
            rotate: labels.length > 6 ? -40 : 0,
            size: labels.length > 6 ? 70 : 40,
          },
          { label: unit, values: (_u, splits) => splits.map((v) => format(v)) },
        ],
        series: [
          {},
          {
            label: title,
            fill: "rgba(37, 99, 235, 0.55)",
            stroke: "#1d4ed8",
            paths: uPlot.paths.bars!({ size: [0.7, 64] }),
            points: { show: false },
          },
        ],
      },
      [xs, values],
      el,
    );
    return () => chart.destroy();
  }, [labels.join("\u0000"), values.join(","), unit, title]);

  return (
    <figure class="chart" id={id}>
      <figcaption>{title}</figcaption>
      <div
        ref={host}
        class="chart-canvas"
        aria-hidden="true"
        data-bars={values.length}
        data-total={values.reduce((a, b) => a + b, 0)}
      />
      <details>
        <summary>{title}: the numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{category}</th>
              <th scope="col">{unit}</th>
            </tr>
          </thead>
          <tbody>
            {labels.map((l, i) => (
              <tr key={l}>
                <th scope="row">{l}</th>
                <td>{format(values[i])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
