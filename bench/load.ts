/**
 * A closed-loop load generator: `concurrency` workers, each starting its next operation as
 * soon as the last ends, until a time or count limit. Every row of the benchmark runs
 * through this one driver over Node's fetch (undici, keep-alive), the MCP client included,
 * so that the figures differ by what is measured and not by how.
 */
export interface LoadResult {
  ops: number;
  errors: number;
  seconds: number;
  throughput: number;
  p50_ms: number;
  p99_ms: number;
  firstError?: string;
}

export async function runLoad(o: {
  concurrency: number;
  durationMs: number;
  maxOps: number;
  op: (worker: number) => Promise<void>;
}): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let started = 0;
  let firstError: string | undefined;
  const t0 = performance.now();
  const deadline = t0 + o.durationMs;
  const worker = async (w: number) => {
    while (performance.now() < deadline && started < o.maxOps) {
      started++;
      const s = performance.now();
      try {
        await o.op(w);
        latencies.push(performance.now() - s);
      } catch (err) {
        errors++;
        firstError ??= String(err);
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, (_, w) => worker(w)));
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    ops: latencies.length,
    errors,
    seconds,
    throughput: latencies.length / seconds,
    p50_ms: quantile(latencies, 0.5),
    p99_ms: quantile(latencies, 0.99),
    ...(firstError ? { firstError } : {}),
  };
}

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}
