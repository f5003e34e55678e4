/**
 * What the account holds, asked with wrangler's own commands (each read-only): the secrets of
 * each Worker that declares some (null when the Worker does not exist yet), the queues and the
 * D1 databases and the R2 buckets the runtime needs. Also the one runner for wrangler commands.
 */
import { spawnSync } from "node:child_process";
import type { AccountFacts, WorkerConfig } from "./plan.ts";
import { bucketInfo, d1List, queueInfo, queuesOf, RUNTIME, secretList } from "./plan.ts";

export interface Run {
  status: number;
  out: string;
}

/** Runs `npx <argv>` in `root`; `echo` streams its output to the operator as well. */
export function npx(root: string, argv: string[], echo = false): Run {
  const r = spawnSync("npx", argv, { cwd: root, encoding: "utf8", stdio: echo ? "inherit" : "pipe", env: process.env });
  return { status: r.status ?? 1, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/** Signed in, or a token in the environment: `wrangler whoami` names the account. */
export function signedIn(root: string): Run & { ok: boolean } {
  const r = npx(root, ["wrangler", "whoami"]);
  return { ...r, ok: r.status === 0 && !/not authenticated/i.test(r.out) };
}

/** The JSON array in a command's output: from the line that opens it (a warning such as `▲ [WARNING]` may come first). */
function jsonArray(out: string): unknown[] {
  const start = out.search(/^\[/m);
  if (start < 0) throw new Error(`expected a JSON list in:\n${out}`);
  return JSON.parse(out.slice(start, out.lastIndexOf("]") + 1)) as unknown[];
}

/** A Worker that does not exist answers `secret list` with code 10007 (Cloudflare API error codes). */
const NO_SUCH_WORKER = /10007|does not exist|not found/i;

/** The account's answers, asked with exactly the commands the plan shows (its `check`s and secret lists). */
export function accountFacts(root: string, workers: WorkerConfig[], env?: string): AccountFacts {
  const secrets: AccountFacts["secrets"] = {};
  for (const w of workers.filter((x) => x.requiredSecrets.length > 0 || x.optionalSecrets.length > 0)) {
    const r = npx(root, secretList(w.config, env));
    if (r.status !== 0) {
      if (!NO_SUCH_WORKER.test(r.out)) throw new Error(`could not list ${w.name}'s secrets:\n${r.out}`);
      secrets[w.name] = null;
      continue;
    }
    const list = jsonArray(r.out) as { name: string }[];
    secrets[w.name] = list.map((s) => s.name);
  }
  const runtime = workers.find((w) => w.config === RUNTIME)!;
  // `queues info` fails for a queue that does not exist; a create then reports any other cause.
  const queues = queuesOf(runtime).filter((q) => npx(root, queueInfo(q)).status === 0);
  const d1 = npx(root, d1List());
  if (d1.status !== 0) throw new Error(`could not list the D1 databases:\n${d1.out}`);
  const databases = (jsonArray(d1.out) as { name: string }[]).map((d) => d.name);
  // `r2 bucket info` fails for a bucket that does not exist, as `queues info` does for a queue.
  const buckets = runtime.r2.map((b) => b.name).filter((b) => npx(root, bucketInfo(b)).status === 0);
  return { secrets, queues, databases, buckets };
}
