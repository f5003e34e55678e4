/**
 * `npm run bench:profile`: where the CPU of one upstream call goes, function by function, for
 * the account of the upstream hop (bench/README.md, "The upstream rows"). The time meter
 * (bench/metered/time-meter.ts) times calls between parts; the code between them (the edge, the
 * JSON-RPC envelope, the answer's parsing, the schemas) runs without I/O, where workerd's clock
 * does not move. So this samples it instead: it starts the benchmark's sessions, turns on V8's
 * sampling profiler in each Worker the inspectors of the runtime's session and of the floor's list
 * (wrangler's lists one per session: the runtime's, and in the floor's session the upstream's
 * copy), runs `runtime → upstream` and `F0 → upstream` one call at a time, and prints each
 * one's sampled time per call by source file and by function. The runtime's bundle is minified,
 * so its own functions show under short names; the platform's (fetch, queue send) by theirs.
 * Samples are of wall time while the isolate is not idle, on a thread it shares with the
 * session's other isolates: where it waits inside a native call, that call gets the time.
 *
 *   npm run bench:profile                 # 300 calls of each row
 *   npm run bench:profile -- --calls=100
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runLoad } from "./load.ts";
import { root, startStack } from "./stack.ts";

const CALLS = Number(process.argv.find((a) => a.startsWith("--calls="))?.slice("--calls=".length) ?? 300);
const INTERVAL_US = 100;
const stamp = new Date().toISOString().replace(/[:.]/g, "-");

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One DevTools protocol connection to a Worker's isolate. */
async function connect(url: string): Promise<{
  send: (method: string, params?: object) => Promise<Record<string, unknown>>;
  close: () => void;
}> {
  // The inspector refuses a client with a user agent and no Origin (DNS rebinding).
  const ws = new WebSocket(url, { headers: { origin: "http://localhost" } } as never);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, (r: Record<string, unknown>) => void>();
  ws.addEventListener("message", (e) => {
    const m = JSON.parse(String(e.data)) as { id?: number; result?: Record<string, unknown>; error?: unknown };
    if (m.id !== undefined) waiting.get(m.id)?.(m.result ?? { error: m.error });
  });
  return {
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** Self time per node (µs), from the samples and the time between them. */
function selfTimes(p: Profile): Map<number, number> {
  const out = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++)
    out.set(p.samples[i], (out.get(p.samples[i]) ?? 0) + (p.timeDeltas[i + 1] ?? 0));
  return out;
}

/** A source file as a reader knows it: the repository path, or the package, or V8's own. */
function fileOf(url: string): string {
  if (url === "") return "(V8 / native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  const i = url.indexOf(root);
  return i >= 0 ? url.slice(i + root.length + 1) : url.replace(/^file:\/\//, "");
}

/**
 * Time under each named function (its own and its callees', each sample counted once per
 * function however deep it recurs): where self time alone would scatter a step over the
 * platform's native calls it makes.
 */
function inclusiveTimes(p: Profile, self: Map<number, number>): Map<string, number> {
  const parent = new Map<number, number>();
  for (const node of p.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const out = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
      const { functionName, url, lineNumber } = byId.get(n)!.callFrame;
      if (functionName === "" || functionName.startsWith("(") || functionName.length < 4) continue;
      const fn = `${functionName} ${fileOf(url)}:${lineNumber + 1}`;
      if (seen.has(fn)) continue;
      seen.add(fn);
      out.set(fn, (out.get(fn) ?? 0) + us);
    }
  }
  return out;
}

function report(worker: string, p: Profile, calls: number): string[] {
  const self = selfTimes(p);
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  for (const node of p.nodes) {
    const us = self.get(node.id) ?? 0;
    if (us === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    busy += us;
    const special = functionName.startsWith("(") ? functionName : undefined;
    const file = special ?? fileOf(url);
    byFile.set(file, (byFile.get(file) ?? 0) + us);
    const fn = special ?? `${functionName || "(anonymous)"} ${fileOf(url)}:${lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  }
  const per = (us: number) => (us / 1000 / calls).toFixed(3).padStart(7);
  const lines = [`  ${worker}: ${per(busy)} ms of CPU sampled per call`];
  for (const [file, us] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 15))
    lines.push(`      ${per(us)} ms  ${file}`);
  lines.push("    functions, self:");
  for (const [fn, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 15))
    lines.push(`      ${per(us)} ms  ${fn}`);
  lines.push("    functions, with their callees (named, 4 characters or more: the bundles' minified ones left out):");
  for (const [fn, us] of [...inclusiveTimes(p, self)].sort((a, b) => b[1] - a[1]).slice(0, 40))
    lines.push(`      ${per(us)} ms  ${fn}`);
  return lines;
}

async function profileRow(name: string, inspector: string, op: () => Promise<void>): Promise<string[]> {
  const targets = (await (await fetch(`${inspector}/json/list`)).json()) as {
    title: string;
    webSocketDebuggerUrl: string;
  }[];
  const sessions = await Promise.all(
    targets.map(async (t) => ({
      worker: t.title.replace(/^Cloudflare Worker:? ?/, "") || "worker",
      ...(await connect(t.webSocketDebuggerUrl)),
    })),
  );
  await runLoad({ concurrency: 1, durationMs: 30_000, maxOps: 50, op }); // warm
  for (const s of sessions) {
    await s.send("Profiler.enable");
    await s.send("Profiler.setSamplingInterval", { interval: INTERVAL_US });
    await s.send("Profiler.start");
  }
  const load = await runLoad({ concurrency: 1, durationMs: 120_000, maxOps: CALLS, op });
  const lines = [
    `${name}: ${load.ops} calls one at a time, mean ${((load.seconds * 1000) / Math.max(1, load.ops)).toFixed(1)} ms, p50 ${load.p50_ms.toFixed(1)} ms${load.errors ? `, ${load.errors} errors (${load.firstError})` : ""}`,
  ];
  for (const s of sessions) {
    const { profile } = (await s.send("Profiler.stop")) as { profile?: Profile };
    s.close();
    if (!profile) continue;
    // Kept beside the benchmark's results (git-ignored), for a closer look in DevTools.
    writeFileSync(
      join(
        root,
        "bench",
        "results",
        `profile-${stamp}-${name.replace(/\W+/g, "-")}-${s.worker.replace(/\W+/g, "-")}.cpuprofile`,
      ),
      JSON.stringify(profile),
    );
    const busy = report(s.worker, profile, load.ops);
    if (busy.length > 0) lines.push(...busy);
  }
  return lines;
}

async function main(): Promise<void> {
  const devVars = readFileSync(join(root, ".dev.vars"), "utf8");
  const key = /^DEV_API_KEY=(.*)$/m.exec(devVars)?.[1];
  mkdirSync(join(root, "bench", "results"), { recursive: true });
  const stack = await startStack();
  try {
    const post = async (url: string, body: string, headers: Record<string, string>) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
    };
    const lines = [
      ...(await profileRow("runtime → upstream", stack.inspectors.runtime, () =>
        post(
          `${stack.runtime}/v1/executions`,
          JSON.stringify({ tool: "example.echo", input: { text: "hello" }, limits: { timeout_ms: 30_000 } }),
          { authorization: `Bearer ${key}` },
        ),
      )),
      ...(await profileRow("F0 → upstream", stack.inspectors.floor, () =>
        post(`${stack.floor}/f0-upstream`, JSON.stringify({ text: "hello" }), {}),
      )),
    ];
    console.log(lines.join("\n"));
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
