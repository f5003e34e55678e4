/**
 * A worker thread hosting a group of simulated isolates. Each isolate has a module graph of
 * its own (sim/module-instances.ts), so its own registry snapshot and health batch exactly as
 * an isolate of the edge has, and its own Env whose bindings reach the real objects through
 * the gateway (sim/remote-env.ts). All of them warm up, wait for the common start, then take
 * calls as Poisson streams at their share of the total rate until the cell's end; the group
 * reports its outcomes and every request sent to a shared object, per second since the start.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { CreateEdge, EdgeOptions, SimCall, SimEdge, SimOutcome } from "./edges/edge.ts";
import { loadInstance } from "./module-instances.ts";
import { remoteCaches } from "./remote-cache.ts";
import { remoteEnv } from "./remote-env.ts";

export interface GroupSetup {
  /** The isolates' numbers (each is its own module graph). */
  isolates: number[];
  gateway: string;
  vars: Record<string, unknown>;
  design: string;
  options: EdgeOptions;
  call: Omit<SimCall, "tenant">;
  tenants: number;
  /** Added to every Cache API operation (ms). */
  cacheDelayMs: number;
  /** Calls a second, per isolate. */
  ratePerSecond: number;
  durationMs: number;
}

export interface GroupReport {
  calls: number;
  outcomes: Record<SimOutcome | "error", number>;
  firstError?: string;
  /** `BINDING.method` → requests sent in each second since the start (index = second). */
  requests: Record<string, number[]>;
}

const setup = workerData as GroupSetup;
const port = parentPort!;
let startedAt = 0;
const requests: Record<string, number[]> = {};
const onCall = (binding: string, method: string) => {
  if (startedAt === 0) return; // warming up: not part of the measurement
  const series = (requests[`${binding}.${method}`] ??= []);
  const second = Math.floor((Date.now() - startedAt) / 1000);
  series[second] = (series[second] ?? 0) + 1;
};

// The data center's Cache API: one for every simulated isolate (the gateway's).
(globalThis as { caches?: unknown }).caches = remoteCaches(setup.gateway, onCall, setup.cacheDelayMs);

const edges: SimEdge[] = [];
for (const n of setup.isolates) {
  const { createEdge } = await loadInstance<{ createEdge: CreateEdge }>(`./edges/${setup.design}.ts`, String(n));
  edges.push(createEdge(remoteEnv(setup.gateway, setup.vars, onCall), setup.options));
}
// Many isolates warm at once, and wrangler's local proxy may drop a connection in that burst: retry, bounded.
await Promise.all(edges.map((edge) => retry(() => edge.warm(), 5)));
port.postMessage({ kind: "ready" });

const start = await new Promise<number>((resolve) =>
  port.once("message", (m: { kind: "start"; at: number }) => resolve(m.at)),
);
await new Promise((r) => setTimeout(r, Math.max(0, start - Date.now())));
startedAt = Date.now();
const report: GroupReport = {
  calls: 0,
  outcomes: { ok: 0, failed: 0, no_provider: 0, refused: 0, error: 0 },
  requests,
};
const inFlight = new Set<Promise<void>>();
const end = startedAt + setup.durationMs;
await Promise.all(edges.map((edge) => takeCalls(edge)));
// Calls still running finish (bounded): their requests belong to the cell.
await Promise.race([Promise.allSettled([...inFlight]), new Promise((r) => setTimeout(r, 5_000))]);
port.postMessage({ kind: "done", report });

/** One isolate's Poisson stream of calls; a late timer fires every call that is due, so the rate holds under load. */
async function takeCalls(edge: SimEdge): Promise<void> {
  let next = startedAt + exponential(setup.ratePerSecond);
  while (next < end) {
    await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    while (next <= Date.now() && next < end) {
      next += exponential(setup.ratePerSecond);
      report.calls++;
      const p: Promise<void> = edge
        .call({ ...setup.call, tenant: `sim-tenant-${Math.floor(Math.random() * setup.tenants)}` })
        .then((o) => void report.outcomes[o]++)
        .catch((err) => {
          report.outcomes.error++;
          report.firstError ??= String(err);
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
  }
}

function exponential(ratePerSecond: number): number {
  return (-Math.log(1 - Math.random()) / ratePerSecond) * 1000;
}

async function retry(f: () => Promise<void>, attempts: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await f();
    } catch (err) {
      if (attempt >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 200 * attempt * Math.random()));
    }
  }
}
