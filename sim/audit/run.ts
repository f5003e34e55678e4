/**
 * `npm run simulate:audit`: the audit store at volume (docs/scale.md section 7.4). The real queue
 * consumer (`consumeAudit`, src/audit/consumer.ts) runs in this Node process against N real local
 * D1 databases (AUDIT_DB, AUDIT_DB_1, …, made by Miniflare's Node API, each migrated with
 * migrations/ first) and a local R2 bucket as AUDIT_ARCHIVE, as wrangler.jsonc binds them. The
 * traffic is synthetic and time-compressed: R calls/s for S simulated seconds, each call's tenant
 * drawn from a Zipf distribution over T tenants (seeded), each call a `finished` message (a
 * record from test/fixtures/record.ts through `auditEntryOf`, with a fast-path view) and a
 * `usage` CPU report carrying its tenant's hash, in the same delivery half the time and in the
 * next otherwise; deliveries of max_batch_size messages (wrangler.jsonc), one after another.
 *
 * Each shard's database is wrapped to count what D1 would bill and limit: rows written
 * (`meta.rows_written` of every statement), requests (batches and single statements) and bytes
 * (its `meta.size_after` after the run minus before). The table gives per shard rows, bytes and
 * requests per simulated second, and what a 24 h window would hold against D1's 10 GB and the
 * size bound (AUDIT_MAX_EXECUTIONS).
 *
 *   npm run simulate:audit                                   # 100 and 1,000 calls/s, 1, 2, 4, 8 shards, 10 s each
 *   npm run simulate:audit -- --rates 1000 --shards 4 --seconds 5
 *   npm run simulate:audit -- --tenants 50 --zipf 0.8 --no-archive
 *
 * Bounded: at most --max-executions executions per cell (R × S), and a wall-clock budget
 * (--max-wall-seconds) after which a cell stops where it is and says so.
 *
 * The consumer runs in Node as it is: its imports are plain TypeScript that Node 22 strips, and
 * the globals it uses (crypto.randomUUID, TextEncoder) are Node's too; only its bindings are
 * remote (Miniflare's proxies to the workerd that holds the databases).
 */
import { readD1Migrations } from "@cloudflare/vitest-plugin";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Miniflare } from "miniflare";
import { readJsonc } from "../../scripts/jsonc.ts";
import type { AuditMessage } from "../../src/audit/messages.ts";
import { auditEntryOf } from "../../src/audit/outbox.ts";
import { shardIndex, tenantHash } from "../../src/audit/shards.ts";
import type { ErrorCode } from "../../src/contract.ts";
import { toView } from "../../src/execution/record.ts";
import { executionRecord } from "../../test/fixtures/record.ts";
import type { Setup, ShardState } from "./worker.ts";
import {
  D1_MAX_BYTES,
  planDeliveries,
  prng,
  project,
  sampler,
  shardCapacity,
  shardsForWindow,
  shardTable,
  summaryTable,
  zipfShares,
  type CellSummary,
  type Limits,
  type Planned,
  type ShardCount,
} from "./model.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

const { values: args } = parseArgs({
  options: {
    rates: { type: "string", default: "100,1000" },
    shards: { type: "string", default: "1,2,4,8" },
    seconds: { type: "string", default: "10" },
    tenants: { type: "string", default: "1000" },
    zipf: { type: "string", default: "1.1" },
    seed: { type: "string", default: "1" },
    // The fast path's finished view, as JSON (a small result: the measured runs' views were ~600 B).
    "view-bytes": { type: "string", default: "600" },
    // The share of CPU reports that arrive in the same delivery as their record.
    "same-delivery": { type: "string", default: "0.5" },
    "no-archive": { type: "boolean", default: false },
    "max-executions": { type: "string", default: "20000" },
    "max-wall-seconds": { type: "string", default: "3600" },
  },
});
const RATES = args.rates.split(",").map(Number);
const SHARDS = args.shards.split(",").map(Number);
const SECONDS = Number(args.seconds);
const TENANTS = Number(args.tenants);
const ZIPF = Number(args.zipf);
const SEED = Number(args.seed);
const VIEW_BYTES = Number(args["view-bytes"]);
const SAME = Number(args["same-delivery"]);
const MAX_EXECUTIONS = Number(args["max-executions"]);
const WALL_MS = Number(args["max-wall-seconds"]) * 1000;
if (
  !RATES.every((r) => Number.isInteger(r) && r > 0) ||
  !SHARDS.every((n) => Number.isInteger(n) && n >= 1 && n <= 64) ||
  !(SECONDS > 0) ||
  !(Number.isInteger(TENANTS) && TENANTS >= 1) ||
  !(ZIPF >= 0) ||
  !(SAME >= 0 && SAME <= 1) ||
  !(VIEW_BYTES >= 200)
) {
  throw new Error(
    "--rates and --shards (1-64) take positive integers, --seconds > 0, --tenants ≥ 1, --zipf ≥ 0, --same-delivery 0..1, --view-bytes ≥ 200",
  );
}
for (const r of RATES)
  if (r * SECONDS > MAX_EXECUTIONS)
    throw new Error(`${r} calls/s × ${SECONDS} s is more than --max-executions ${MAX_EXECUTIONS}: shorten --seconds`);

/** The runtime's wrangler.jsonc: its vars, and the consumer's batch size. */
interface WranglerConfig {
  vars: Record<string, unknown>;
  queues: { consumers: { queue: string; max_batch_size: number }[] };
}
const config = readJsonc<WranglerConfig>(join(root, "wrangler.jsonc"));
const BATCH = config.queues.consumers[0].max_batch_size;
const limits: Limits = {
  maxExecutions: Number(config.vars.AUDIT_MAX_EXECUTIONS),
  windowSeconds: Number(config.vars.EXECUTION_RETENTION_MS) / 1000,
  maxBytes: D1_MAX_BYTES,
};

/** Tenants by rank (index 0 the hottest), their shares, and their shard for any N (src/audit/shards.ts). */
const tenants = Array.from({ length: TENANTS }, (_, i) => `tenant-${String(i + 1).padStart(4, "0")}`);
const hashes = tenants.map(tenantHash);
const shares = zipfShares(TENANTS, ZIPF);
const shardOf = (t: number, n: number) => shardIndex(hashes[t], n);

const TOOLS = [
  "math.sum",
  "http.request",
  "json.query",
  "text.search",
  "demo.countdown",
  "kv.get",
  "csv.parse",
  "time.now",
];

/** The messages of one simulated execution. */
interface Execution {
  tenant: number;
  finished: AuditMessage;
  usage: AuditMessage;
}

/** An execution that ended at `endedAt`: its record and fast-path view, and its CPU report. */
function execution(tenant: number, endedAt: number, random: () => number): Execution {
  const latency = Math.round(5 + 200 * random() ** 3);
  const failed = random() < 0.05;
  const provider = random() < 0.7 ? "std" : "community";
  const record = executionRecord(failed ? "failed" : "succeeded", {
    tenant: tenants[tenant],
    agent: `agent-${Math.floor(random() * 5)}`,
    tool: TOOLS[Math.floor(random() * TOOLS.length)],
    provider,
    accepted_at: endedAt - latency,
    running_at: endedAt - latency + 1,
    ended_at: endedAt,
    params_hash: Math.floor(random() * 2 ** 52)
      .toString(16)
      .padStart(64, "0"),
    trace_id: Math.floor(random() * 2 ** 52)
      .toString(16)
      .padStart(32, "0"),
    attempts: [
      {
        attempt: 1,
        provider,
        outcome: failed ? "tool_error" : "succeeded",
        started_ms: 1,
        duration_ms: latency - 1,
        provider_latency_ms: Math.max(0, latency - 3),
        cpu_ms: null,
      },
    ],
    ...(failed
      ? {
          error: {
            code: "tool_error" as ErrorCode,
            message: "the tool failed",
            type: "execution_error" as const,
            retryable: false,
          },
        }
      : {}),
  });
  // The view with an output padded so that the whole is about VIEW_BYTES.
  const base = JSON.stringify(toView({ ...record, output: { result: "" } }));
  const view = JSON.stringify(
    toView({ ...record, output: { result: "x".repeat(Math.max(0, VIEW_BYTES - base.length)) } }),
  );
  const retention = Number(config.vars.EXECUTION_RETENTION_MS);
  return {
    tenant,
    finished: { kind: "finished", record: auditEntryOf(record), view, retention_ms: retention },
    usage: {
      kind: "usage",
      reports: [
        {
          execution_id: record.execution_id,
          attempt: 1,
          cpu_ms: Math.round(random() * 200) / 10,
          tenant_hash: hashes[tenant],
        },
      ],
      expires_at: endedAt + retention,
    },
  };
}

interface CellResult {
  rate: number;
  shards: number;
  seconds: number;
  executions: number;
  deliveries: number;
  cutShort: boolean;
  wallSeconds: number;
  counts: ShardCount[];
  /** Rows written by table, all shards. */
  tables: Record<string, number>;
  r2Puts: number;
}

async function runCell(rate: number, n: number, deadline: number): Promise<CellResult> {
  const started = Date.now();
  const random = prng(SEED);
  const pick = sampler(shares, random);
  const total = rate * SECONDS;
  const t0 = Date.now();
  const executions: Execution[] = [];
  for (let e = 0; e < total; e++) executions.push(execution(pick(), t0 + Math.floor((e * 1000) / rate), random));
  const plan = planDeliveries(total, BATCH, () => random() < SAME);

  const persist = mkdtempSync(join(tmpdir(), "sim-audit-"));
  const names = Array.from({ length: n }, (_, k) => (k === 0 ? "AUDIT_DB" : `AUDIT_DB_${k}`));
  const mf = new Miniflare({
    resourcePersistencePath: persist,
    workers: [
      {
        config: {
          name: "sim-audit",
          compatibilityDate: "2026-10-01",
          manifest: { mainModule: "index.js", modules: { "index.js": { type: "esm", contents: await workerCode() } } },
          env: {
            ...Object.fromEntries(names.map((b) => [b, { type: "d1" as const, id: `sim-audit-${b}` }])),
            AUDIT_ARCHIVE: { type: "r2" as const, name: "sim-audit-archive" },
          },
        },
      },
    ],
  } as unknown as ConstructorParameters<typeof Miniflare>[0]);
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const res = await mf.dispatchFetch(`http://sim${path}`, {
      method: body === undefined ? "GET" : "POST",
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${path}: ${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  try {
    const setup: Setup = {
      vars: config.vars,
      shards: n,
      archive: !args["no-archive"],
      migrations: (await readD1Migrations(join(root, "migrations"))).flatMap((m) => m.queries),
    };
    await call("/setup", setup);
    const before = await call<{ shards: ShardState[] }>("/counts");

    const bodyOf = (p: Planned) => executions[p.execution][p.kind];
    let done = 0;
    let written = 0;
    let cutShort = false;
    for (const [i, delivery] of plan.entries()) {
      if (Date.now() > deadline) {
        cutShort = true;
        break;
      }
      await call("/deliver", { id: i, bodies: delivery.map(bodyOf) });
      done++;
      written += delivery.filter((p) => p.kind === "finished").length;
      if (done % Math.max(1, Math.floor(plan.length / 5)) === 0)
        process.stderr.write(
          `  ${rate}/s, ${n} shard(s): ${done}/${plan.length} deliveries, ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
        );
    }
    const after = await call<{ shards: ShardState[]; r2Puts: number }>("/counts");
    const perShard = new Array<number>(n).fill(0);
    for (const p of plan.slice(0, done).flat())
      if (p.kind === "finished") perShard[shardOf(executions[p.execution].tenant, n)]++;
    // Each shard's records as stored, against where src/audit/shards.ts says each tenant lives.
    const stored = after.shards.map((s) => s.stored);
    if (stored.some((s, k) => s !== perShard[k]))
      throw new Error(`records stored per shard ${stored.join(",")} are not the records routed ${perShard.join(",")}`);
    return {
      rate,
      shards: n,
      seconds: cutShort ? written / rate : SECONDS,
      executions: written,
      deliveries: done,
      cutShort,
      wallSeconds: (Date.now() - started) / 1000,
      r2Puts: after.r2Puts,
      tables: after.shards.reduce<Record<string, number>>((all, s, k) => {
        for (const [t, rows] of Object.entries(s.tables))
          all[t] = (all[t] ?? 0) + rows - (before.shards[k].tables[t] ?? 0);
        return all;
      }, {}),
      counts: after.shards.map((s, k) => ({
        executions: perShard[k],
        rows: s.rows - before.shards[k].rows,
        requests: s.requests - before.shards[k].requests,
        batches: s.batches - before.shards[k].batches,
        bytes: s.size - before.shards[k].size,
      })),
    };
  } finally {
    await mf.dispose();
    rmSync(persist, { recursive: true, force: true });
  }
}

/** sim/audit/worker.ts and what it imports (the consumer), bundled once for workerd. */
let bundled: Promise<string> | undefined;
function workerCode(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import("rolldown");
    const out = await build({
      cwd: root,
      input: join(root, "sim/audit/worker.ts"),
      platform: "neutral",
      external: [/^cloudflare:/, /^node:/],
      write: false,
      output: { format: "esm" },
      logLevel: "warn",
    });
    return out.output[0].code;
  })();
  return bundled;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const deadline = Date.now() + WALL_MS;
  const commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" }).trim();
    } catch {
      return "?";
    }
  })();
  const command = `npm run simulate:audit${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(" ")}` : ""}`;
  const results: CellResult[] = [];
  const out: string[] = [
    `${command}   (${startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC, commit ${commit})`,
    `${SECONDS} simulated s per cell; ${TENANTS} tenants, Zipf ${ZIPF} (the hottest ${(shares[0] * 100).toFixed(1)}% of calls), seed ${SEED};` +
      ` deliveries of ${BATCH}; CPU reports ${Math.round(SAME * 100)}% in their record's delivery; views ~${VIEW_BYTES} B;` +
      ` archive ${args["no-archive"] ? "off" : "on"}; window ${limits.windowSeconds / 3600} h, AUDIT_MAX_EXECUTIONS ${limits.maxExecutions.toLocaleString("en-US")}`,
    "",
  ];
  const summaries: CellSummary[] = [];
  for (const rate of RATES) {
    for (const n of SHARDS) {
      process.stderr.write(`cell: ${rate} calls/s, ${n} shard(s), ${rate * SECONDS} executions...\n`);
      const r = await runCell(rate, n, deadline);
      results.push(r);
      const projected = project(r.counts, r.seconds, limits);
      const busiest = projected.reduce((a, b) => (b.share > a.share ? b : a));
      const bytesPerExecution = r.counts.reduce((a, c) => a + c.bytes, 0) / r.executions;
      summaries.push({
        rate,
        shards: n,
        executions: r.executions,
        busiest,
        needed: shardsForWindow(shares, rate, shardCapacity(limits, bytesPerExecution), limits.windowSeconds, shardOf),
      });
      out.push(
        `${rate} calls/s, ${n} shard(s): ${r.executions.toLocaleString("en-US")} executions in ${r.deliveries} deliveries` +
          ` (${r.seconds} simulated s${r.cutShort ? ", CUT SHORT by --max-wall-seconds" : ""}; ${r.wallSeconds.toFixed(0)} s wall);` +
          ` ${Math.round(bytesPerExecution).toLocaleString("en-US")} B and ${(r.counts.reduce((a, c) => a + c.rows, 0) / r.executions).toFixed(2)} rows per execution; R2 puts ${(r.r2Puts / r.seconds).toFixed(1)}/s`,
        `rows per execution by table: ${Object.entries(r.tables)
          .sort((a, b) => b[1] - a[1])
          .map(([t, rows]) => `${t} ${(rows / r.executions).toFixed(2)}`)
          .join(", ")}`,
        shardTable(projected),
        "",
      );
    }
  }
  out.push(
    "the busiest shard of each cell; N for 24 h: the fewest shards whose busiest holds a full window (expected Zipf shares, the real jump hash)",
    summaryTable(summaries),
  );
  console.log(out.join("\n"));
  const dir = join(root, "sim", "results");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `audit-${startedAt.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      { command, commit, started_at: startedAt.toISOString(), args, batch: BATCH, limits, results },
      null,
      2,
    ),
  );
  process.stderr.write(`results: ${file}; done in ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)} s\n`);
}

await main();
