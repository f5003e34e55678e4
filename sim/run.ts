/**
 * `npm run simulate`: many simulated edge isolates against the runtime's real shared objects
 * (docs/scale.md, "Simulation"). One `wrangler dev` session runs the stack `npm start` runs,
 * with the simulation's gateway Worker in front (sim/gateway); each simulated isolate runs the
 * design's real edge code (sim/edges/<design>.ts) in a module graph of its own, so it keeps
 * its own snapshot and batches (sim/module-instances.ts), hosted a group per worker thread
 * (sim/isolate-group.ts). Each cell (1, 10, 100 isolates) shares one total call rate; the
 * objects' own request counters (the metered build's `GET /__bench/cost`) say what each shared object received.
 *
 *   npm run simulate                                  # the edge before its per-provider health view, then as it stands: 1, 10, 100 isolates, 50 calls/s in all, std fails 10%
 *   npm run simulate -- --isolates 1,10 --cell-seconds 10
 *   npm run simulate -- --design current              # one design only
 *   npm run simulate -- --design current --cache-delay-ms 300   # a slow data center cache: refills race
 *   npm run simulate -- --design current --cache-delay-ms 300 --no-relay   # ... and no relay to absorb them
 *
 * Bounded: every cell runs for a fixed time, every wait has a deadline, and the session is
 * stopped (by its process group) whatever happens.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";
import { meteredConfig, root, session, stackConfigArgs, stopSession, type Session } from "../bench/stack.ts";
import { writeDevConfig } from "../scripts/dev-config.ts";
import type { RegistrySnapshot } from "../src/registry/catalog.ts";
import type { GroupReport, GroupSetup } from "./isolate-group.ts";

const { values: args } = parseArgs({
  options: {
    // sim/edges/<design>.ts, each measured at every isolate count in the same session.
    design: { type: "string", default: "before,current" },
    isolates: { type: "string", default: "1,10,100" },
    // 50 calls/s: at 200 the one-isolate cell overloads the local stack with its own re-reads and
    // trial requests (docs/scale.md section 7), and the figures would measure the machine.
    rate: { type: "string", default: "50" },
    failure: { type: "string", default: "0.1" },
    provider: { type: "string", default: "std" },
    // One breaker cycle of a fresh tool: opens within a second, 30 s cooldown, the half-open and
    // its trial storm, which lasts until every isolate's copy is refreshed (TTL 5 s).
    "cell-seconds": { type: "string", default: "36" },
    "latency-ms": { type: "string", default: "20" },
    tenants: { type: "string", default: "1" },
    admission: { type: "boolean", default: false },
    // The current edge without its data center's relay: refills read the registry (the edge before the relay).
    "no-relay": { type: "boolean", default: false },
    threads: { type: "string", default: "2" },
    // Added to every Cache API operation: isolates that find the entry stale within this long of each other all refill it.
    "cache-delay-ms": { type: "string", default: "0" },
  },
});
const ISOLATES = args.isolates.split(",").map(Number);
const DESIGNS = args.design.split(",").filter(Boolean);
const RATE = Number(args.rate);
const FAILURE = Number(args.failure);
const CELL_MS = Number(args["cell-seconds"]) * 1000;
const LATENCY_MS = Number(args["latency-ms"]);
const TENANTS = Number(args.tenants);
const THREADS = Math.max(1, Number(args.threads));
const CACHE_DELAY_MS = Number(args["cache-delay-ms"]);
if (
  !ISOLATES.every((n) => Number.isInteger(n) && n > 0 && n <= 200) ||
  !(RATE > 0) ||
  !(FAILURE >= 0 && FAILURE <= 1) ||
  !(CELL_MS > 0 && CELL_MS <= 120_000) ||
  !(CACHE_DELAY_MS >= 0 && CACHE_DELAY_MS <= 5_000)
) {
  throw new Error(
    "--isolates takes 1-200 each, --rate > 0, --failure 0..1, --cell-seconds up to 120, --cache-delay-ms 0..5000",
  );
}

type Costs = Record<string, { requests: number; rows_written: number }>;

interface CellResult {
  design: string;
  isolates: number;
  tool: string;
  seconds: number;
  calls: number;
  outcomes: Record<string, number>;
  /** Requests each Durable Object class (and `Class.method`) received in the cell, counted at the objects. */
  at_objects: Record<string, number>;
  /** Requests the isolates sent, by `BINDING.method` (the Cache API's as `CACHE.*`). */
  sent: Record<string, number>;
  /** Requests the registry object received in each second of the cell, counted at the object. */
  registry_per_second: number[];
  errors: string[];
}

/** The wrangler session, stopped on every way out: the end, an error, an interrupt. */
let live: Session | undefined;
function stopLive(): Promise<void> {
  const s = live;
  live = undefined;
  return s ? stopSession(s) : Promise.resolve();
}
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void stopLive().finally(() => process.exit(130)));
process.on("unhandledRejection", (err) => {
  console.error(err);
  void stopLive().finally(() => process.exit(1));
});

async function main(): Promise<void> {
  const startedAt = new Date();
  const vars = await runtimeVars();
  process.stderr.write("starting the stack and the simulation gateway under wrangler dev...\n");
  const stack = (live = await session(
    "sim",
    ["-c", "sim/gateway/wrangler.jsonc", ...stackConfigArgs()],
    async (u) => (await fetch(`${u}/readyz`)).status === 200,
    meteredConfig(),
  ));
  try {
    const tools = cellTools(await rpc<RegistrySnapshot>(stack.url, "REGISTRY", "registry", "snapshot"), args.provider);
    const cells: CellResult[] = [];
    const plan = DESIGNS.flatMap((design) => ISOLATES.map((isolates) => ({ design, isolates })));
    for (const [i, { design, isolates }] of plan.entries()) {
      const tool = tools[i % tools.length];
      // Every cell starts from a provider with no history: a closed breaker, no statistics, and
      // (a TTL later) no copy of the registry anywhere that says otherwise.
      await rpc(stack.url, "REGISTRY", "registry", "resetHealth", args.provider);
      await new Promise((r) => setTimeout(r, Number(vars.REGISTRY_SNAPSHOT_TTL_MS ?? 5_000) + 500));
      process.stderr.write(
        `cell ${i + 1}/${plan.length}: ${design}, ${isolates} isolate(s), ${tool}, ${CELL_MS / 1000} s...\n`,
      );
      cells.push(await runCell(stack.url, vars, design, isolates, tool));
    }
    report(startedAt, cells);
    process.stderr.write(`done in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s\n`);
  } finally {
    await stopLive();
  }
}

/** The runtime's vars as wrangler reads them, with limits out of the way (the simulation measures shared objects, not refusals). */
async function runtimeVars(): Promise<Record<string, unknown>> {
  const { unstable_readConfig } = await import("wrangler");
  const vars = { ...(unstable_readConfig({ config: writeDevConfig(root) }).vars as Record<string, unknown>) };
  vars.TENANT_LIMITS = {
    default: {
      requests_per_second: 1e6,
      burst: 1e6,
      tool_requests_per_second: 1e6,
      tool_burst: 1e6,
      max_concurrent: 100_000,
    },
  };
  return vars;
}

/**
 * One tool per cell, so that each cell starts with a closed breaker (the registry keeps breaker
 * state between cells): the tools served by `provider` alone, with the default breaker policy.
 */
function cellTools(snapshot: RegistrySnapshot, provider: string): string[] {
  const tools = Object.values(snapshot.tools)
    .filter((t) => {
      const offerings = t.versions[t.active_version] ?? [];
      return offerings.length === 1 && offerings[0].provider === provider && !offerings[0].manifest.breaker;
    })
    .map((t) => t.name)
    .sort();
  if (tools.length === 0) throw new Error(`no tool is served by ${provider} alone with the default breaker`);
  return tools;
}

async function runCell(
  gateway: string,
  vars: Record<string, unknown>,
  design: string,
  isolates: number,
  tool: string,
): Promise<CellResult> {
  const workers: Worker[] = [];
  try {
    const ready: Promise<void>[] = [];
    const done: Promise<GroupReport>[] = [];
    const threads = Math.min(THREADS, isolates);
    for (let t = 0; t < threads; t++) {
      const setup: GroupSetup = {
        isolates: Array.from({ length: isolates }, (_, i) => i).filter((i) => i % threads === t),
        gateway,
        vars,
        design,
        options: { admission: args.admission, relay: !args["no-relay"] },
        call: { tool, failingProvider: args.provider, failureRate: FAILURE, latencyMs: LATENCY_MS },
        tenants: TENANTS,
        cacheDelayMs: CACHE_DELAY_MS,
        ratePerSecond: RATE / isolates,
        durationMs: CELL_MS,
      };
      const worker = new Worker(new URL("./isolate-group.ts", import.meta.url), { workerData: setup });
      workers.push(worker);
      const failed = new Promise<never>((_, reject) => worker.once("error", reject));
      ready.push(Promise.race([failed, new Promise<void>((resolve) => worker.once("message", () => resolve()))]));
      done.push(
        Promise.race([
          failed,
          new Promise<GroupReport>((resolve) =>
            worker.on(
              "message",
              (m: { kind: string; report?: GroupReport }) => m.kind === "done" && resolve(m.report!),
            ),
          ),
        ]),
      );
      // Whichever of these is not awaited (a failure during warm-up ends the cell) must not crash the run.
      for (const p of [failed, ready.at(-1)!, done.at(-1)!]) p.catch(() => {});
    }
    const spawned = Date.now();
    await deadline(Promise.all(ready), 120_000, "isolates did not warm up");
    process.stderr.write(`  ${isolates} isolate(s) warm in ${((Date.now() - spawned) / 1000).toFixed(1)} s\n`);
    const before = await costs(gateway);
    const at = Date.now() + 500;
    for (const w of workers) w.postMessage({ kind: "start", at });
    // The registry's requests per second, read at the object once a second (bounded by the cell).
    const perSecond: number[] = [];
    let last = before.RegistryObject?.requests ?? 0;
    const sampler = setInterval(() => {
      void costs(gateway)
        .then((c) => {
          const n = c.RegistryObject?.requests ?? 0;
          perSecond.push(n - last);
          last = n;
        })
        .catch(() => {});
    }, 1_000);
    try {
      const reports = await deadline(Promise.all(done), CELL_MS + 60_000, "isolates did not finish");
      await Promise.all(workers.map((w) => w.terminate()));
      await new Promise((r) => setTimeout(r, 500)); // requests already sent reach their object
      const after = await costs(gateway);
      return summarize(design, isolates, tool, reports, before, after, perSecond);
    } finally {
      clearInterval(sampler);
    }
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

function summarize(
  design: string,
  isolates: number,
  tool: string,
  reports: GroupReport[],
  before: Costs,
  after: Costs,
  perSecond: number[],
): CellResult {
  const outcomes: Record<string, number> = {};
  const sent: Record<string, number> = {};
  for (const r of reports) {
    for (const [k, n] of Object.entries(r.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + n;
    for (const [key, series] of Object.entries(r.requests))
      sent[key] = (sent[key] ?? 0) + series.reduce((s, n) => s + (n ?? 0), 0);
  }
  return {
    design,
    isolates,
    tool,
    seconds: CELL_MS / 1000,
    calls: reports.reduce((s, r) => s + r.calls, 0),
    outcomes,
    at_objects: Object.fromEntries(
      Object.keys(after)
        .map((k) => [k, after[k].requests - (before[k]?.requests ?? 0)])
        .filter(([, n]) => (n as number) > 0),
    ),
    sent,
    registry_per_second: perSecond,
    errors: reports.flatMap((r) => (r.firstError ? [r.firstError] : [])),
  };
}

function report(startedAt: Date, cells: CellResult[]): void {
  const lines: string[] = [];
  lines.push(
    `tool-runtime simulation, ${startedAt.toISOString()}, ${cpus().length} cores: ${RATE} calls/s in all (Poisson), split evenly over the isolates; ` +
      `provider ${args.provider} fails ${FAILURE * 100}% of its calls (${LATENCY_MS} ms each); ${CELL_MS / 1000} s per cell; ${TENANTS} tenant(s)${args.admission ? ", with admission" : ""}${args["no-relay"] ? ", no relay" : ""}` +
      `${CACHE_DELAY_MS > 0 ? `; every cache operation ${CACHE_DELAY_MS} ms slower` : ""}`,
  );
  lines.push("");
  lines.push(
    "design   isolates  calls/s  failed/s  no provider/s   registry req/s  per 1,000 calls  peak req/s (1 s)  | snapshot/s  report/s  trial/s  applyHealth/s  | health req/s  per 1,000  cache ops/s",
  );
  for (const c of cells) {
    const perS = (n = 0) => n / c.seconds;
    const registry = c.at_objects.RegistryObject ?? 0;
    const health = c.at_objects.HealthObject ?? 0;
    const cacheOps = (c.sent["CACHE.match"] ?? 0) + (c.sent["CACHE.put"] ?? 0);
    lines.push(
      `${c.design.padEnd(8)} ${String(c.isolates).padStart(8)} ${fmt(perS(c.calls), 1).padStart(8)}  ${fmt(perS(c.outcomes.failed), 1).padStart(8)}  ${fmt(perS(c.outcomes.no_provider), 1).padStart(13)}   ` +
        `${fmt(perS(registry), 2).padStart(14)}  ${fmt((registry / c.calls) * 1000, 1).padStart(15)}  ${String(Math.max(0, ...c.registry_per_second)).padStart(16)}  | ` +
        `${fmt(perS(c.at_objects["RegistryObject.snapshot"]), 2).padStart(10)}  ${fmt(perS(c.at_objects["RegistryObject.report"]), 2).padStart(8)}  ${fmt(perS(c.at_objects["RegistryObject.acquireTrial"]), 2).padStart(7)}  ${fmt(perS(c.at_objects["RegistryObject.applyHealth"]), 2).padStart(13)}  | ` +
        `${fmt(perS(health), 2).padStart(12)}  ${fmt((health / c.calls) * 1000, 1).padStart(9)}  ${fmt(perS(cacheOps), 2).padStart(11)}`,
    );
  }
  lines.push("");
  lines.push("requests per second at each shared object (counted at the object), and what the isolates sent (check)");
  for (const c of cells) {
    const objects = Object.entries(c.at_objects)
      .filter(([k]) => !k.includes("."))
      .map(([k, n]) => `${k} ${fmt(n / c.seconds, 2)}/s`);
    const sentTo = (binding: string) =>
      Object.entries(c.sent)
        .filter(([k]) => k.startsWith(`${binding}.`))
        .reduce((s, [, n]) => s + n, 0);
    lines.push(
      `  ${c.design.padEnd(8)} ${String(c.isolates).padStart(3)} isolate(s): ${objects.join(", ") || "none"}; sent to the registry ${sentTo("REGISTRY")}, to health shards ${sentTo("HEALTH")}, cache ops ${sentTo("CACHE")}` +
        `${c.errors.length ? `; errors: ${c.errors[0]}` : ""}`,
    );
  }
  const text = lines.join("\n");
  console.log(text);
  mkdirSync(join(root, "sim", "results"), { recursive: true });
  const file = join(
    root,
    "sim",
    "results",
    `${DESIGNS.join("+")}-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`,
  );
  writeFileSync(file, JSON.stringify({ started_at: startedAt, args, cells, table: text }, null, 2));
  console.log(`\nwritten to ${file}`);
}

async function rpc<T>(
  gateway: string,
  binding: string,
  name: string,
  method: string,
  ...rpcArgs: unknown[]
): Promise<T> {
  const res = await fetch(`${gateway}/sim/rpc`, {
    method: "POST",
    body: JSON.stringify({ binding, name, method, args: rpcArgs }),
  });
  const body = (await res.json()) as { ok: boolean; value: T; error?: string };
  if (!body.ok) throw new Error(body.error);
  return body.value;
}

/** The metered build's counters (bench/metered/): requests and rows per object class. */
async function costs(gateway: string): Promise<Costs> {
  const res = await fetch(`${gateway}/__bench/cost`);
  if (res.status !== 200) throw new Error(`GET /__bench/cost: HTTP ${res.status}`);
  return (await res.json()) as Costs;
}

function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms / 1000} s`)), ms)),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "-");

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
