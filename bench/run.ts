/**
 * `npm run bench`: the runtime against its floors and a peer, side by side in one run
 * (bench/README.md explains every row). Bounded: every cell runs for a fixed time and at
 * most a fixed number of operations; the whole run takes a few minutes. `--quick` shortens
 * every cell for a smoke run.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { decode as decodeMsgpack, encode as encodeMsgpack } from "@msgpack/msgpack";
import { connectMcp } from "./mcp-client.ts";
import { median, quantile, runLoad, type LoadResult } from "./load.ts";
import { costPerMillion, PRICES_READ_ON } from "./prices.ts";
import { cpuSeconds, root, startStack, type Stack } from "./stack.ts";

const quick = process.argv.includes("--quick");
/** `--only=<regex>`: only the throughput rows whose names match (with their floors), for a focused look; no targets are judged. */
const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length);
const ROUNDS = quick ? 1 : 3;
const CELL_MS = quick ? 1_000 : 3_000;
const MAX_OPS = 20_000;
const CONCURRENCY = [1, 16, 64];
const FANOUT = [1, 10, 100];

const devVars = Object.fromEntries(
  readFileSync(join(root, ".dev.vars"), "utf8")
    .split("\n")
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
const auth = { authorization: `Bearer ${devVars.DEV_API_KEY}` };
const jsonHeaders = { "content-type": "application/json", ...auth };
const ECHO = JSON.stringify({ x: 1, text: "hello" });
// lab.echo is an "instant" tool (100 ms budget); under load the queueing alone outlasts that,
// and the runtime would rightly answer `timeout`. The floors have no budget at all, so the
// runtime's rows give the call 30 s: throughput is measured, not the budget.
const LIMITS = { timeout_ms: 30_000 };
const TERMINAL = new Set(["succeeded", "failed", "cancelled", "timed_out"]);

async function ok(res: Response, status = 200): Promise<string> {
  const text = await res.text();
  if (res.status !== status) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
  return text;
}

type Op = (worker: number) => Promise<void>;

/**
 * The queue-drain row (docs/contract.md#waiting): QUEUE_N async executions started at once by a tenant that runs 8 at a time
 * (the rest wait in its queue), then polled to their ends; the same executions by a tenant
 * with room for all. Rate = executions ended per second from the first start to the last end.
 */
const QUEUE_N = 500;
interface DrainResult {
  kind: "queued" | "unqueued";
  executions: number;
  succeeded: number;
  queued_at_start: number;
  seconds: number;
  per_second: number;
}

async function drain(stack: Stack, kind: DrainResult["kind"]): Promise<DrainResult> {
  const post = (url: string, body: string, h: Record<string, string>) =>
    fetch(url, { method: "POST", headers: h, body });
  let headers: Record<string, string> = jsonHeaders;
  if (kind === "queued") {
    const made = JSON.parse(
      await ok(
        await post(
          `${stack.runtime}/v1/admin/keys`,
          JSON.stringify({ tenant: `bench-queue-${Date.now()}`, agent: "bench", channels: ["*"] }),
          { "content-type": "application/json", authorization: `Bearer ${devVars.DEV_ADMIN_KEY}` },
        ),
        201,
      ),
    );
    headers = { ...jsonHeaders, authorization: `Bearer ${made.key}` };
  }
  const body = JSON.stringify({ tool: "lab.echo", mode: "async", input: JSON.parse(ECHO), limits: LIMITS });
  const t0 = performance.now();
  const ids: string[] = [];
  let queuedAtStart = 0;
  // 16 submitters, like the throughput rows' middle column.
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (ids.length < QUEUE_N) {
        ids.push("");
        const i = ids.length - 1;
        const started = JSON.parse(await ok(await post(`${stack.runtime}/v1/executions`, body, headers), 202));
        ids[i] = started.execution_id;
        if (started.status === "queued") queuedAtStart++;
      }
    }),
  );
  const pending = new Set(ids);
  let succeeded = 0;
  const poll = { authorization: headers.authorization };
  for (let round = 0; round < 10_000 && pending.size > 0; round++) {
    await Promise.all(
      [...pending].slice(0, 64).map(async (id) => {
        const view = JSON.parse(await ok(await fetch(`${stack.runtime}/v1/executions/${id}`, { headers: poll })));
        if (!TERMINAL.has(view.status)) return;
        pending.delete(id);
        if (view.status === "succeeded") succeeded++;
      }),
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    kind,
    executions: QUEUE_N,
    succeeded,
    queued_at_start: queuedAtStart,
    seconds: round2(seconds),
    per_second: round2(QUEUE_N / seconds),
  };
}

type McpClients = Awaited<ReturnType<typeof connectMcp>>[];

/** The runtime's own MCP face: the same lab.echo and budget as the REST rows, through /mcp. */
const connectRuntimeMcp = (stack: Stack) =>
  connectMcp(`${stack.runtime}/mcp`, { headers: auth, tool: "lab.echo", meta: { "io.tool-runtime/limits": LIMITS } });

/** The example upstream (examples/upstream-mcp) called directly: its `echo`, with the official client. */
const connectUpstream = (stack: Stack) => connectMcp(stack.upstream, { tool: "echo" });
const UPSTREAM_ECHO = JSON.stringify({ text: "hello" });

function rows(
  stack: Stack,
  mcp: McpClients,
  runtimeMcp: McpClients = [],
  upstream: McpClients = [],
): Record<string, Op> {
  const post = (url: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
    fetch(url, { method: "POST", headers, body });
  return {
    "F0 direct binding": async () => void (await ok(await post(`${stack.floor}/f0`, ECHO))),
    "F1 new DO + row": async () => void (await ok(await post(`${stack.floor}/f1`, ECHO))),
    // The floor of the upstream hop: the same echo as "runtime → upstream", one tools/call from
    // the floor Worker over one service binding to a copy of the example upstream in its session.
    "F0 → upstream": async () => void (await ok(await post(`${stack.floor}/f0-upstream`, UPSTREAM_ECHO))),
    "runtime sync": async () =>
      void (await ok(
        await post(
          `${stack.runtime}/v1/executions`,
          JSON.stringify({ tool: "lab.echo", input: JSON.parse(ECHO), limits: LIMITS }),
          jsonHeaders,
        ),
      )),
    "runtime sync msgpack": async () => {
      const res = await fetch(`${stack.runtime}/v1/executions`, {
        method: "POST",
        headers: { "content-type": "application/msgpack", accept: "application/msgpack", ...auth },
        body: encodeMsgpack({ tool: "lab.echo", input: JSON.parse(ECHO), limits: LIMITS }) as BodyInit,
      });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      decodeMsgpack(new Uint8Array(await res.arrayBuffer()));
    },
    // Stages 1-4 alone (credential, decode, lookup, ranking, capability incl. the verifier,
    // schema): what the edge costs before anything is dispatched.
    "runtime dry_run 1-4": async () =>
      void (await ok(
        await post(
          `${stack.runtime}/v1/executions`,
          JSON.stringify({ tool: "lab.echo", mode: "dry_run", input: JSON.parse(ECHO), limits: LIMITS }),
          jsonHeaders,
        ),
      )),
    "runtime async+poll": async () => {
      const started = JSON.parse(
        await ok(
          await post(
            `${stack.runtime}/v1/executions`,
            JSON.stringify({ tool: "lab.echo", mode: "async", input: JSON.parse(ECHO), limits: LIMITS }),
            jsonHeaders,
          ),
          202,
        ),
      );
      for (let i = 0; i < 1000; i++) {
        const view = JSON.parse(
          await ok(await fetch(`${stack.runtime}/v1/executions/${started.execution_id}`, { headers: auth })),
        );
        if (TERMINAL.has(view.status)) return;
        await new Promise((r) => setTimeout(r, 2));
      }
      throw new Error("never finished");
    },
    // A keyed call (docs/contract.md#idempotency): its own execution object, planned there; a new key each time.
    "runtime keyed sync": async () =>
      void (await ok(
        await post(
          `${stack.runtime}/v1/executions`,
          JSON.stringify({
            tool: "lab.echo",
            input: JSON.parse(ECHO),
            limits: LIMITS,
            idempotency_key: crypto.randomUUID(),
          }),
          jsonHeaders,
        ),
      )),
    "runtime stream": async () => {
      const text = await ok(
        await post(
          `${stack.runtime}/v1/executions`,
          JSON.stringify({ tool: "lab.echo", stream: true, input: JSON.parse(ECHO), limits: LIMITS }),
          jsonHeaders,
        ),
      );
      if (!text.includes("event: done")) throw new Error("stream ended without done");
    },
    // The official client's tools/call to the runtime's /mcp (2026-07-28): the sync fast path.
    "runtime MCP tools/call": async (w) => void (await runtimeMcp[w].echo(JSON.parse(ECHO))),
    "MCP peer (agents)": async (w) => void (await mcp[w].echo(JSON.parse(ECHO))),
    // The example upstream's `echo` through the runtime (REST sync, registered in
    // development as `example.echo`: egress, credential, the MCP adapter, run-time schemas), and
    // the same tool on the upstream directly.
    "runtime → upstream": async () =>
      void (await ok(
        await post(
          `${stack.runtime}/v1/executions`,
          JSON.stringify({ tool: "example.echo", input: JSON.parse(UPSTREAM_ECHO), limits: LIMITS }),
          jsonHeaders,
        ),
      )),
    "upstream direct (MCP)": async (w) => void (await upstream[w].echo(JSON.parse(UPSTREAM_ECHO))),
  };
}

interface Cell {
  row: string;
  concurrency: number;
  rounds: LoadResult[];
}

async function throughputTable(stack: Stack): Promise<Cell[]> {
  const clients = await Promise.all(Array.from({ length: Math.max(...CONCURRENCY) }, () => connectMcp(stack.mcp)));
  const runtimeClients = await Promise.all(
    Array.from({ length: Math.max(...CONCURRENCY) }, () => connectRuntimeMcp(stack)),
  );
  const upstreamClients = await Promise.all(
    Array.from({ length: Math.max(...CONCURRENCY) }, () => connectUpstream(stack)),
  );
  try {
    const all = rows(stack, clients, runtimeClients, upstreamClients);
    const ops = only
      ? Object.fromEntries(Object.entries(all).filter(([name]) => /^F[01] /.test(name) || new RegExp(only).test(name)))
      : all;
    // Warm every path once (first-call costs: module load, registry snapshot, DO classes).
    for (const op of Object.values(ops)) await runLoad({ concurrency: 4, durationMs: 500, maxOps: 50, op });
    const cells = new Map<string, Cell>();
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved: every row runs once per round, so drift hits each alike.
      for (const c of CONCURRENCY) {
        for (const [row, op] of Object.entries(ops)) {
          const r = await runLoad({ concurrency: c, durationMs: CELL_MS, maxOps: MAX_OPS, op });
          const key = `${row}@${c}`;
          if (!cells.has(key)) cells.set(key, { row, concurrency: c, rounds: [] });
          cells.get(key)!.rounds.push(r);
          process.stderr.write(
            `round ${round + 1}/${ROUNDS} ${key}: ${r.throughput.toFixed(0)}/s p50 ${r.p50_ms.toFixed(1)} ms${r.errors ? ` errors ${r.errors} (${r.firstError})` : ""}\n`,
          );
        }
      }
    }
    return [...cells.values()];
  } finally {
    await Promise.all([...clients, ...runtimeClients, ...upstreamClients].map((c) => c.close()));
  }
}

interface FanoutResult {
  subscribers: number;
  delivered_min: number;
  expected: number;
  p50_lag_ms: number;
  p99_lag_ms: number;
}

async function fanout(stack: Stack, subscribers: number): Promise<FanoutResult> {
  const COUNT = 198; // + start + done = 200 events
  const started = JSON.parse(
    await ok(
      await fetch(`${stack.runtime}/v1/executions`, {
        method: "POST",
        headers: jsonHeaders,
        body: JSON.stringify({
          tool: "lab.burst",
          mode: "async",
          input: { count: COUNT, wait_ms: 2_000, interval_ms: 5 },
          limits: { timeout_ms: 60_000 },
        }),
      }),
      202,
    ),
  );
  const lags: number[] = [];
  const delivered = await Promise.all(
    Array.from({ length: subscribers }, async () => {
      const res = await fetch(`${stack.runtime}/v1/executions/${started.execution_id}/stream`, { headers: auth });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      let events = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = frame.split("\n").find((l) => l.startsWith("data: "));
          if (!data) continue;
          events++;
          const payload = JSON.parse(data.slice(6));
          if (payload.type === "stdout") lags.push(Date.now() - Date.parse(payload.at));
        }
      }
      return events;
    }),
  );
  lags.sort((a, b) => a - b);
  return {
    subscribers,
    delivered_min: Math.min(...delivered),
    expected: COUNT + 2,
    p50_lag_ms: quantile(lags, 0.5),
    p99_lag_ms: quantile(lags, 0.99),
  };
}

type Costs = Record<string, { requests: number; rows_written: number }>;
type Timings = Record<string, { calls: number; ms: number }>;

/** One kind's time at concurrency 1: the caller's mean and p50, and each call between parts, per execution. */
export interface TimeAccount {
  mean_ms: number;
  p50_ms: number;
  parts: Timings;
}

async function costs(stack: Stack): Promise<{
  kinds: Record<string, { per_execution: Costs; note: string; time: TimeAccount }>;
  floors: Record<string, TimeAccount>;
}> {
  // The metered build's counters (bench/metered/): Durable Object requests and rows per class,
  // queue messages (AuditQueue) and D1 batches and rows (AuditD1); and the time of every call
  // between parts, where it is made (bench/metered/time-meter.ts).
  const read = async <T>(path: string): Promise<T> => (await (await fetch(`${stack.runtime}${path}`)).json()) as T;
  const diff = (a: Costs, b: Costs, n: number): Costs =>
    Object.fromEntries(
      Object.keys(b).map((k) => [
        k,
        {
          requests: round2((b[k].requests - (a[k]?.requests ?? 0)) / n),
          rows_written: round2((b[k].rows_written - (a[k]?.rows_written ?? 0)) / n),
        },
      ]),
    );
  const timeDiff = (a: Timings, b: Timings, n: number): Timings =>
    Object.fromEntries(
      Object.keys(b)
        .map((k): [string, Timings[string]] => [
          k,
          { calls: round2((b[k].calls - (a[k]?.calls ?? 0)) / n), ms: round2((b[k].ms - (a[k]?.ms ?? 0)) / n) },
        ])
        .filter(([, t]) => t.calls > 0),
    );
  // One MCP client for the MCP face's row (concurrency 1: worker 0), connected before the count.
  const mcpClient = await connectRuntimeMcp(stack);
  const ops = rows(stack, [], [mcpClient]);
  const n = quick ? 20 : 100;
  const account = (load: LoadResult, parts: Timings): TimeAccount => ({
    mean_ms: round2((load.seconds * 1000) / Math.max(1, load.ops)),
    p50_ms: round2(load.p50_ms),
    parts,
  });
  // Timing on for this account only: its wrapping costs CPU the throughput rows must not pay.
  await fetch(`${stack.runtime}/__bench/time/on`, { method: "POST" });
  const floors: Record<string, TimeAccount> = {};
  for (const row of ["F0 direct binding", "F1 new DO + row", "F0 → upstream"] as const) {
    await runLoad({ concurrency: 1, durationMs: 60_000, maxOps: 10, op: ops[row] }); // warm: first calls build isolates
    floors[row] = account(await runLoad({ concurrency: 1, durationMs: 60_000, maxOps: n, op: ops[row] }), {});
  }
  const kinds: Record<string, { per_execution: Costs; note: string; time: TimeAccount }> = {};
  for (const [kind, row, note] of [
    ["fast", "runtime sync", "the fast path: admission from the isolate's lease, health batched, one audit message"],
    ["keyed", "runtime keyed sync", "its own object, planned and admitted there"],
    ["async", "runtime async+poll", "includes the caller's polls (GET) until the end"],
    ["stream", "runtime stream", "one subscriber reading to the terminal event"],
    ["upstream", "runtime → upstream", "the example upstream MCP server's echo, federated (the fast path)"],
    ["mcp", "runtime MCP tools/call", "tools/call on the runtime's /mcp (2026-07-28), then the fast path"],
  ] as const) {
    // `--cost-only --only=<regex>`: only the kinds whose rows match, for a focused account.
    if (only && !new RegExp(only).test(row)) continue;
    const [before, timesBefore] = await Promise.all([read<Costs>("/__bench/cost"), read<Timings>("/__bench/time")]);
    const load = await runLoad({ concurrency: 1, durationMs: 60_000, maxOps: n, op: ops[row] });
    await new Promise((r) => setTimeout(r, 2_500)); // let background work land: verdicts, health batches, the audit consumer
    const [after, timesAfter] = await Promise.all([read<Costs>("/__bench/cost"), read<Timings>("/__bench/time")]);
    kinds[kind] = {
      per_execution: diff(before, after, n),
      note,
      time: account(load, timeDiff(timesBefore, timesAfter, n)),
    };
  }
  await mcpClient.close();
  await fetch(`${stack.runtime}/__bench/time/off`, { method: "POST" });
  return { kinds, floors };
}

async function cpuPer1000(
  stack: Stack,
  selected = [
    "F0 direct binding",
    "F1 new DO + row",
    "F0 → upstream",
    "runtime sync",
    "runtime keyed sync",
    "runtime → upstream",
    "upstream direct (MCP)",
  ],
): Promise<Record<string, number[]>> {
  // The MCP rows (chosen with --only) need one connected client per concurrent worker (16 here),
  // connected before the count starts; the default selection needs none.
  const clients = (row: RegExp, connect: () => Promise<McpClients[number]>) =>
    selected.some((r) => row.test(r)) ? Promise.all(Array.from({ length: 16 }, connect)) : Promise.resolve([]);
  const [peer, runtimeMcp, upstream] = await Promise.all([
    clients(/^MCP peer/, () => connectMcp(stack.mcp)),
    clients(/^runtime MCP/, () => connectRuntimeMcp(stack)),
    clients(/^upstream direct/, () => connectUpstream(stack)),
  ]);
  try {
    return await cpuRounds(stack, selected, rows(stack, peer, runtimeMcp, upstream));
  } finally {
    await Promise.all([...peer, ...runtimeMcp, ...upstream].map((c) => c.close()));
  }
}

async function cpuRounds(stack: Stack, selected: string[], ops: Record<string, Op>): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (let round = 0; round < (quick ? 1 : 2); round++) {
    for (const row of selected) {
      const n = quick ? 100 : 400;
      const before = cpuSeconds(stack.workerdPids());
      await runLoad({ concurrency: 16, durationMs: 120_000, maxOps: n, op: ops[row] });
      (out[row] ??= []).push(((cpuSeconds(stack.workerdPids()) - before) / n) * 1000);
    }
  }
  return out;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "-");

async function main(): Promise<void> {
  const startedAt = new Date();
  process.stderr.write("starting the stack, the floor Worker and the MCP peer under wrangler dev...\n");
  const stack = await startStack();
  try {
    if (process.argv.includes("--fanout-only")) {
      for (const n of FANOUT) console.log(JSON.stringify(await fanout(stack, n)));
      return;
    }
    if (process.argv.includes("--cost-only")) {
      const c = await costs(stack);
      for (const [kind, k] of Object.entries(c.kinds))
        console.log(`${kind.padEnd(7)} ${JSON.stringify(k.per_execution)}`);
      console.log(["", ...timeLines(c)].join("\n"));
      return;
    }
    const cells = await throughputTable(stack);
    if (only) {
      for (const cell of cells.map(summary))
        console.log(
          `${cell.row.padEnd(22)} ${String(cell.concurrency).padStart(4)}  ${fmt(cell.throughput.median).padStart(6)}/s  p50 ${fmt(cell.p50_ms, 1)} ms`,
        );
      console.log(upstreamLines(cells.map(summary)).join("\n"));
      const selected = [...new Set(cells.map((c) => c.row))];
      for (const [row, xs] of Object.entries(await cpuPer1000(stack, selected)))
        console.log(`cpu ${row.padEnd(22)} ${fmt(median(xs), 2)} s per 1,000 (${xs.map((x) => fmt(x, 2)).join(", ")})`);
      return;
    }
    const fan: FanoutResult[][] = [];
    // One fan-out at a time: three at once would measure the machine, not the fan-out.
    for (let round = 0; round < (quick ? 1 : 2); round++) {
      const results: FanoutResult[] = [];
      for (const s of FANOUT) results.push(await fanout(stack, s));
      fan.push(results);
    }
    const cost = await costs(stack);
    const cpu = await cpuPer1000(stack);
    // Unqueued first, then queued, twice: drift hits each alike.
    const drains: DrainResult[] = [];
    for (let round = 0; round < (quick ? 1 : 2); round++)
      for (const kind of ["unqueued", "queued"] as const) drains.push(await drain(stack, kind));
    report({ startedAt, cells, fan, cost, cpu, drains });
  } finally {
    await stack.stop();
  }
}

/**
 * Where each kind's time goes at concurrency 1 (bench/README.md, "Where the time goes"): the
 * caller's mean beside the floors', and every call one part made to another, per execution.
 */
function timeLines(c: Awaited<ReturnType<typeof costs>>): string[] {
  const f1 = c.floors["F1 new DO + row"]?.mean_ms ?? NaN;
  const lines = [
    "where the time goes, concurrency 1 (ms per execution; each call timed where it is made, nested calls inside their caller's)",
    `  floors  ${Object.entries(c.floors)
      .map(([row, t]) => `${row}: mean ${fmt(t.mean_ms, 1)}, p50 ${fmt(t.p50_ms, 1)}`)
      .join("; ")}`,
  ];
  for (const [kind, k] of Object.entries(c.kinds)) {
    lines.push(
      `  ${kind.padEnd(7)} mean ${fmt(k.time.mean_ms, 1)}, p50 ${fmt(k.time.p50_ms, 1)} (mean ${fmt(k.time.mean_ms - f1, 1)} over F1's)`,
    );
    for (const [part, t] of Object.entries(k.time.parts).sort((a, b) => b[1].ms - a[1].ms))
      lines.push(`            ${part.padEnd(48)} ${fmt(t.calls, 2).padStart(5)} calls ${fmt(t.ms, 2).padStart(7)} ms`);
  }
  return lines;
}

/**
 * The upstream rows side by side (bench/README.md, "The upstream rows"): the runtime's call of
 * the example upstream's echo against the upstream called directly and against its floor
 * ("F0 → upstream": the same call from a bare Worker over one service binding), and the floor
 * against direct (what one Worker and one hop in front of the upstream cost). Same run, same rounds.
 */
function upstreamLines(sums: ReturnType<typeof summary>[]): string[] {
  const at = (row: string, c: number) => sums.find((s) => s.row === row && s.concurrency === c);
  const pairs = [
    ["runtime → upstream", "upstream direct (MCP)"],
    ["runtime → upstream", "F0 → upstream"],
    ["F0 → upstream", "upstream direct (MCP)"],
  ] as const;
  const lines: string[] = [];
  for (const [a, b] of pairs) {
    const cells = CONCURRENCY.map((c) => [c, at(a, c), at(b, c)] as const).filter(([, x, y]) => x && y);
    if (cells.length === 0) continue;
    if (lines.length === 0) lines.push("upstream MCP server (example.echo), ratios within this run");
    lines.push(
      `  ${a} ÷ ${b}: calls/s ${cells.map(([c, x, y]) => `@${c} ${fmt(x!.throughput.median / y!.throughput.median, 2)}`).join(", ")};` +
        `  p50 over (ms) ${cells.map(([c, x, y]) => `@${c} ${fmt(x!.p50_ms - y!.p50_ms, 1)}`).join(", ")}`,
    );
  }
  if (lines.length > 0) lines.push('  where the time goes: bench/README.md, "The upstream rows"', "");
  return lines;
}

function summary(cell: Cell) {
  const t = cell.rounds.map((r) => r.throughput);
  return {
    row: cell.row,
    concurrency: cell.concurrency,
    throughput: { median: median(t), min: Math.min(...t), max: Math.max(...t) },
    p50_ms: median(cell.rounds.map((r) => r.p50_ms)),
    p99_ms: median(cell.rounds.map((r) => r.p99_ms)),
    errors: cell.rounds.reduce((s, r) => s + r.errors, 0),
  };
}

function report(r: {
  startedAt: Date;
  cells: Cell[];
  fan: FanoutResult[][];
  cost: Awaited<ReturnType<typeof costs>>;
  cpu: Record<string, number[]>;
  drains: DrainResult[];
}): void {
  const sums = r.cells.map(summary);
  const at = (row: string, c: number) => sums.find((s) => s.row === row && s.concurrency === c)!;
  const lines: string[] = [];
  lines.push(
    `tool-runtime benchmark, ${r.startedAt.toISOString()}, ${cpus().length} cores, ${ROUNDS} interleaved round(s) of ${CELL_MS / 1000} s per cell${quick ? " (quick)" : ""}`,
  );
  lines.push("");
  lines.push(
    "row                    conc   calls/s (min-max)     p50 ms   p99 ms   ×F0 tput  ×F1 tput  ×F1 p50  errors",
  );
  for (const c of CONCURRENCY) {
    for (const s of sums.filter((x) => x.concurrency === c)) {
      const f0 = at("F0 direct binding", c);
      const f1 = at("F1 new DO + row", c);
      lines.push(
        `${s.row.padEnd(22)} ${String(c).padStart(4)}   ${fmt(s.throughput.median).padStart(6)} (${fmt(s.throughput.min)}-${fmt(s.throughput.max)})`.padEnd(
          52,
        ) +
          `${fmt(s.p50_ms, 1).padStart(7)}  ${fmt(s.p99_ms, 1).padStart(7)}   ${fmt(s.throughput.median / f0.throughput.median, 2).padStart(6)}    ${fmt(s.throughput.median / f1.throughput.median, 2).padStart(6)}    ${fmt(s.p50_ms / f1.p50_ms, 2).padStart(5)}   ${s.errors}`,
      );
    }
    lines.push("");
  }
  const fanRows = FANOUT.map((n) => {
    const rs = r.fan.map((round) => round.find((f) => f.subscribers === n)!);
    return {
      subscribers: n,
      delivered_min: Math.min(...rs.map((x) => x.delivered_min)),
      expected: rs[0].expected,
      p50_lag_ms: median(rs.map((x) => x.p50_lag_ms)),
      p99_lag_ms: median(rs.map((x) => x.p99_lag_ms)),
    };
  });
  const single = fanRows[0];
  lines.push(
    "fan-out: one execution, 200 events   subscribers  delivered (min/expected)  p50 lag ms  p99 lag ms  ×1-sub p99",
  );
  for (const f of fanRows) {
    lines.push(
      `${"".padEnd(37)}${String(f.subscribers).padStart(11)}  ${`${f.delivered_min}/${f.expected}`.padStart(24)}  ${fmt(f.p50_lag_ms, 1).padStart(10)}  ${fmt(f.p99_lag_ms, 1).padStart(10)}  ${fmt(f.p99_lag_ms / single.p99_lag_ms, 2).padStart(10)}`,
    );
  }
  lines.push("");
  lines.push("cost per execution (counted at the objects)   Durable Object requests / SQLite rows written");
  for (const [kind, c] of Object.entries(r.cost.kinds)) {
    const parts = Object.entries(c.per_execution).map(([cls, v]) => `${cls} ${v.requests}/${v.rows_written}`);
    lines.push(`  ${kind.padEnd(7)} ${parts.join(", ")}   (${c.note})`);
  }
  lines.push("");
  // docs/scale.md section 6: the counted part of a million executions at published prices.
  lines.push(
    `cost per million executions at published prices (read ${PRICES_READ_ON}; counted lines only, polls not included: docs/scale.md section 6)`,
  );
  for (const [kind, c] of Object.entries(r.cost.kinds)) {
    const { lines: items, total } = costPerMillion(c.per_execution);
    lines.push(
      `  ${kind.padEnd(7)} $${total.toFixed(2)}   (${Object.entries(items)
        .map(([k, v]) => `${k} $${v.toFixed(2)}`)
        .join(", ")})`,
    );
  }
  lines.push("");
  lines.push(...timeLines(r.cost));
  lines.push("");
  lines.push("workerd CPU seconds per 1,000 executions (all workerd processes, concurrency 16): median (min-max)");
  for (const [row, xs] of Object.entries(r.cpu))
    lines.push(`  ${row.padEnd(20)} ${fmt(median(xs), 2)} (${fmt(Math.min(...xs), 2)}-${fmt(Math.max(...xs), 2)})`);
  lines.push("");
  const ratio = (row: string, floor: string, c: number) =>
    at(row, c).throughput.median / at(floor, c).throughput.median;
  const cost = (kind: string, cls: string) =>
    r.cost.kinds[kind]?.per_execution[cls] ?? { requests: 0, rows_written: 0 };
  const cpu = (row: string) => median(r.cpu[row] ?? [NaN]);
  const drainRate = (kind: DrainResult["kind"]) =>
    median(r.drains.filter((d) => d.kind === kind).map((d) => d.per_second));
  lines.push(`queue drain: ${QUEUE_N} async executions, 16 submitters`);
  for (const d of r.drains)
    lines.push(
      `  ${d.kind.padEnd(9)} ${fmt(d.per_second).padStart(6)}/s  ${d.succeeded}/${d.executions} succeeded, ${d.queued_at_start} queued at start, ${fmt(d.seconds, 1)} s`,
    );
  const F0 = "F0 direct binding";
  const F1 = "F1 new DO + row";
  const p50 = (row: string, c: number) => at(row, c).p50_ms;
  const targets = [
    ...[1, 16, 64].map(
      (c) => [`fast path calls/s @${c} ≥ 0.95 × F0`, ratio("runtime sync", F0, c), 0.95, ">="] as const,
    ),
    ...[1, 16].map(
      (c) => [`fast path p50 @${c} ≤ 1.1 × F0's`, p50("runtime sync", c) / p50(F0, c), 1.1, "<="] as const,
    ),
    ...(["keyed sync", "async+poll", "stream"] as const).flatMap((kind) =>
      [1, 16].map((c) => [`${kind} calls/s @${c} ≥ 0.8 × F1`, ratio(`runtime ${kind}`, F1, c), 0.8, ">="] as const),
    ),
    ["keyed sync CPU per 1,000 ≤ 1.3 × F1's", cpu("runtime keyed sync") / cpu(F1), 1.3, "<="],
    ...[1, 16].map(
      (c) => [`MCP tools/call calls/s @${c} ≥ 0.9 × F0`, ratio("runtime MCP tools/call", F0, c), 0.9, ">="] as const,
    ),
    ...[1, 16].map(
      (c) =>
        [
          `MCP tools/call p50 @${c} ≤ 1.2 × REST fast path's`,
          p50("runtime MCP tools/call", c) / p50("runtime sync", c),
          1.2,
          "<=",
        ] as const,
    ),
    ...[1, 16].map(
      (c) =>
        [
          `upstream hop calls/s @${c} ≥ 0.8 × direct`,
          ratio("runtime → upstream", "upstream direct (MCP)", c),
          0.8,
          ">=",
        ] as const,
    ),
    [
      "upstream hop p50 @1 ≤ direct + 1 ms (ms over direct)",
      p50("runtime → upstream", 1) - p50("upstream direct (MCP)", 1),
      1,
      "<=",
    ],
    [
      "fan-out to 100: all 200 events to every subscriber",
      fanRows.every((f) => f.delivered_min === f.expected) ? 1 : 0,
      1,
      ">=",
    ],
    ["fan-out to 100: p99 lag ≤ 2 × single-subscriber p99", fanRows[2].p99_lag_ms / single.p99_lag_ms, 2, "<="],
    ["fast path: execution objects per call = 0", cost("fast", "ExecutionObject").requests, 0, "<="],
    ["object path: rows written per execution ≤ 3 (keyed)", cost("keyed", "ExecutionObject").rows_written, 3, "<="],
    ["object path: rows written per execution ≤ 3 (async)", cost("async", "ExecutionObject").rows_written, 3, "<="],
    ["fast path CPU per 1,000 ≤ 1.3 × F0's", cpu("runtime sync") / cpu("F0 direct binding"), 1.3, "<="],
    ["queue drain: none lost (all succeeded)", r.drains.every((d) => d.succeeded === d.executions) ? 1 : 0, 1, ">="],
    ["queue drain: queued rate ≥ 0.8 × unqueued", drainRate("queued") / drainRate("unqueued"), 0.8, ">="],
  ] as const;
  // What the runtime adds to a call of an upstream MCP server's tool.
  lines.push(...upstreamLines(sums));
  const [via, direct] = ["runtime → upstream", "upstream direct (MCP)"];
  if (r.cpu[via] && r.cpu[direct]) {
    lines.push(
      `  CPU s per 1,000: ${fmt(cpu(via), 2)} vs ${fmt(cpu(direct), 2)} (the runtime's part: ${fmt(cpu(via) - cpu(direct), 2)}; runtime sync alone: ${fmt(cpu("runtime sync"), 2)})`,
    );
    lines.push("");
  }
  lines.push("targets (aimed at, not asserted)");
  for (const [what, value, goal, op] of targets) {
    const met = op === ">=" ? value >= goal : op === "<=" ? value <= goal : value > goal;
    lines.push(`  ${met ? "met   " : "missed"}  ${what.padEnd(52)} ${fmt(value, 2)}`);
  }
  const text = lines.join("\n");
  console.log(text);
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  const file = join(root, "bench", "results", `${r.startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        started_at: r.startedAt,
        quick,
        rounds: ROUNDS,
        cell_ms: CELL_MS,
        cells: sums,
        raw: r.cells,
        fanout: fanRows,
        cost: r.cost,
        cpu_per_1000: r.cpu,
        queue_drain: r.drains,
        table: text,
      },
      null,
      2,
    ),
  );
  console.log(`\nwritten to ${file}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
