/**
 * Starts what the benchmark measures, each in its own `wrangler dev` session on a free
 * loopback port: the product stack (exactly `npm run stack`), the bench-only floor Worker
 * (F0/F1; its provider binding reaches the stack's lab provider through wrangler's local
 * dev registry; F0 → upstream, a copy of the example upstream in its own session) and the MCP peer. Stops them by process group.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { METERED_CONFIG, writeMeteredConfig } from "./metered/config.ts";
import { applyLocalMigrations } from "../scripts/audit-migrations.ts";
import { DEV_CONFIG, writeGenerated } from "../scripts/dev-config.ts";
import { readJsonc } from "../scripts/jsonc.ts";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The sessions find each other through a dev registry of this run's own, so an `npm start`
// (or a test run) on the same machine cannot answer for one of them.
const ENV = {
  ...process.env,
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  CI: "true",
  WRANGLER_REGISTRY_PATH: mkdtempSync(join(tmpdir(), "tool-runtime-bench-registry-")),
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Session {
  name: string;
  url: string;
  /** The session's DevTools inspector (http://127.0.0.1:port: `/json/list` names each Worker's). */
  inspector: string;
  child: ChildProcess;
  log: () => string;
}

/**
 * One `wrangler dev` session (detached, its own process group) on free loopback ports, once
 * `ready` says so. `migrate` names the config whose audit database the session uses: its
 * migrations are applied into the session's new state folder first, as `npm run stack` does.
 */
export async function session(
  name: string,
  args: string[],
  ready: (url: string) => Promise<boolean>,
  migrate?: string,
): Promise<Session> {
  const port = await freePort();
  const inspector = await freePort();
  const state = mkdtempSync(join(tmpdir(), `tool-runtime-bench-${name}-`));
  if (migrate) {
    try {
      await applyLocalMigrations(migrate, state);
    } catch (err) {
      rmSync(state, { recursive: true, force: true });
      throw err;
    }
  }
  const child = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      ...args,
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--persist-to",
      state,
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: ENV,
    },
  );
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  child.once("exit", () => rmSync(state, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${port}`;
  const s: Session = { name, url, inspector: `http://127.0.0.1:${inspector}`, child, log: () => log };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name}: wrangler dev exited\n${log}`);
    if (await ready(url).catch(() => false)) break;
    if (Date.now() > deadline) {
      await stopSession(s); // never leave a session that did not come up running
      throw new Error(`${name}: not ready in 120 s\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return s;
}

/** Stops a session by its process group: SIGTERM, then SIGKILL after 10 s. */
export async function stopSession(s: Session): Promise<void> {
  if (s.child.exitCode !== null || !s.child.pid) return;
  const exited = new Promise((r) => s.child.once("exit", r));
  process.kill(-s.child.pid, "SIGTERM");
  const t = setTimeout(() => s.child.pid && process.kill(-s.child.pid, "SIGKILL"), 10_000);
  await exited;
  clearTimeout(t);
}

export interface Stack {
  runtime: string;
  floor: string;
  mcp: string;
  /** The example upstream MCP server alone (its /mcp), for the row that calls it directly. */
  upstream: string;
  /** The inspectors of the runtime's session and the floor's (bench/profile.ts). */
  inspectors: { runtime: string; floor: string };
  /** workerd processes of every session (for CPU accounting). */
  workerdPids(): number[];
  stop(): Promise<void>;
}

/** Limits out of the way: the benchmark measures the call path, not the rate limiter's refusals. */
const BENCH_LIMITS = JSON.stringify({
  default: {
    requests_per_second: 1e6,
    burst: 1e6,
    tool_requests_per_second: 1e6,
    tool_burst: 1e6,
    max_concurrent: 100_000,
    max_queued: 100_000,
    max_streams: 100_000,
  },
  // The queue-drain row (docs/contract.md#waiting): a tenant that runs 8 at once and queues the rest.
  tenants: { "bench-queue-*": { max_concurrent: 8, max_queued: 1_000, max_wait_ms: 600_000 } },
});

/**
 * The configs `npm run stack` runs, with the runtime's own swapped for the metered build's
 * (bench/metered/): the same Worker and objects, counted.
 */
export function stackConfigArgs(): string[] {
  const stackScript = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts.stack as string;
  const metered = writeMeteredConfig(root);
  return [...stackScript.matchAll(/-c (\S+)/g)].flatMap((m) => ["-c", m[1] === DEV_CONFIG ? metered : m[1]]);
}

/** The metered runtime's config (written by `stackConfigArgs()`): the one whose audit database a session migrates. */
export const meteredConfig = (): string => join(root, METERED_CONFIG);

/**
 * The example upstream's config under the name the floor Worker binds to (git-ignored, beside
 * wrangler.jsonc so its `main` resolves): the floor session runs its own copy, so that
 * "F0 → upstream" crosses one in-process service binding, as the runtime's upstream call does.
 */
export function floorUpstreamConfig(): string {
  const example = readJsonc<Record<string, unknown>>(join(root, "examples/upstream-mcp/wrangler.jsonc"));
  return writeGenerated(join(root, ".wrangler-bench-upstream.jsonc"), "bench/stack.ts for the benchmark", {
    ...example,
    $schema: "node_modules/wrangler/config-schema.json",
    name: "tool-bench-floor-upstream",
    main: "examples/upstream-mcp/src/index.ts",
  });
}

export async function startStack(): Promise<Stack> {
  const configs = stackConfigArgs();
  const sessions: Session[] = [];
  const stop = async () => {
    for (const s of sessions) await stopSession(s);
  };
  try {
    sessions.push(
      await session(
        "runtime",
        [...configs, "--var", `TENANT_LIMITS:${BENCH_LIMITS}`],
        async (u) => (await fetch(`${u}/readyz`)).status === 200,
        meteredConfig(),
      ),
    );
    sessions.push(
      await session(
        "floor",
        ["-c", "bench/workers/floor/wrangler.jsonc", "-c", floorUpstreamConfig()],
        async (u) => (await fetch(`${u}/f0`, { method: "POST", body: "{}" })).status === 200,
      ),
    );
    sessions.push(
      await session(
        "mcp",
        ["-c", "bench/workers/mcp-peer/wrangler.jsonc"],
        async (u) => (await fetch(`${u}/mcp`, { method: "GET" })).status < 500,
      ),
    );
    // The same example upstream the stack serves as `example.*`, alone, under another name (the
    // stack's copy is registered in the dev registry under its own).
    sessions.push(
      await session(
        "upstream",
        ["-c", "examples/upstream-mcp/wrangler.jsonc", "--name", "mcp-upstream-example-direct"],
        async (u) => (await fetch(`${u}/healthz`)).status === 200,
      ),
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    runtime: sessions[0].url,
    floor: sessions[1].url,
    mcp: `${sessions[2].url}/mcp`,
    upstream: `${sessions[3].url}/mcp`,
    inspectors: { runtime: sessions[0].inspector, floor: sessions[1].inspector },
    workerdPids: () =>
      sessions.flatMap((s) => descendants(s.child.pid!)).filter((pid) => readCmd(pid).includes("workerd")),
    stop,
  };
}

function readCmd(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
}

function descendants(pid: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      byParent.set(ppid, [...(byParent.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of byParent.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** CPU seconds (user + system) used so far by the given processes. */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    } catch {
      /* gone */
    }
  }
  return ticks / 100; // USER_HZ is 100 on Linux
}
