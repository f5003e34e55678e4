/**
 * The examples of README.md and of the guide (docs/guide/*.md) run as written, against the
 * real stack: a reader's first hour must work.
 *
 * Every ```sh block (not marked `no-run`) runs in order in one bash session — README.md first,
 * then each guide page in the order the README links them (test/readme/markdown.ts) — so a
 * variable a block sets (`EXEC=$(…)`) is there for the next, as it is for a reader pasting
 * them into one terminal; the documents' own variables (`TRT`, `KEY`, …) point at this run's
 * stack because its origin replaces http://127.0.0.1:8787 (and the example caller's :8788)
 * wherever it is written. A program marked ```js run runs with the system's Node (20: no
 * TypeScript), one marked ```ts run with the project's Node 22. The output block right after
 * a run block is compared with what it printed (test/readme/expect-output.ts); a block
 * without one must not fail: no command may exit non-zero (a `curl | head` that head closed
 * aside) and no answer may be 4xx or 5xx. The markup is described in test/readme/markdown.ts
 * and test/README.md.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchOutput } from "../readme/expect-output.ts";
import { allBlocks, runBlocks, type Block, type RunBlock } from "../readme/markdown.ts";
import { NODE } from "./cli.ts";
import { asAdmin, baseUrl, execute } from "./http.ts";
import { armedDrills, type Drills } from "./registry-state.ts";
import { provided } from "./stack.ts";

const root = join(import.meta.dirname, "..", "..");
const callerUrl = provided("callerUrl");
const blocks = allBlocks(root);
const runs = runBlocks(blocks);
/** The project's Node (22, from the `node` devDependency): it runs .ts by stripping types. */
const NODE_22 = join(root, "node_modules", ".bin", "node");
const BLOCK_WITHIN_MS = 120_000;
/** What the README's examples write (a program's file, the session's scratch files). */
const work = mkdtempSync(join(tmpdir(), "readme-"));
/** What the README's blocks write into the project, as they would for a reader: removed after, unless it was there before. */
const written = ["runtime.d.ts"].map((f) => join(root, f)).filter((f) => !existsSync(f));

/** The README as run here: its local URLs are this run's stack. */
const pointed = (code: string) =>
  code.replaceAll("http://127.0.0.1:8787", baseUrl).replaceAll("http://127.0.0.1:8788", callerUrl);
const where = (b: Block) => `${b.file}:${b.line} (${b.heading})`;

/** lab.route's providers as a fresh stack has them, so the routing walk-through's answers are its own. */
async function freshRouting(): Promise<void> {
  for (const name of ["lab-broken", "lab-twin", "lab"]) {
    await asAdmin("DELETE", `/v1/admin/providers/${name}/health`);
    await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: false });
  }
  await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "community" });
  await asAdmin("DELETE", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation");
}

/**
 * The guide's operations page arms the audit drills (docs/guide/operations.md: three failed
 * sends, a batch failed halfway, 14 failed deliveries), as a reader would on their own stack;
 * nothing disarms a drill but the audit traffic that spends it, and an armed one would fail
 * the next file's records. So this file makes that traffic until every drill it armed has
 * fired (bounded: the hook's own timeout), and leaves the stack as it found it.
 */
async function spendDrills(before: Drills): Promise<void> {
  const armed = (d: Drills) =>
    (d.fail_next_batch && !before.fail_next_batch) ||
    d.fail_next_send > before.fail_next_send ||
    d.fail_batches > before.fail_batches;
  const read = () => armedDrills((method, path) => asAdmin(method, path));
  for (let d = await read(); armed(d); d = await read()) {
    await execute({ tool: "math.evaluate", input: { expression: "1" }, limits: { timeout_ms: 20_000 } });
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * One bash session for the README's shell blocks. Each block is sourced (so its variables and
 * background jobs stay in the session) with its stdout and stderr in files of its own; `curl`
 * is wrapped only to note each answer's status line, and an ERR trap notes failed commands.
 */
class Session {
  readonly #bash: ChildProcessWithoutNullStreams;
  #out = "";
  #waiters: { marker: string; resolve: (rc: number) => void }[] = [];

  constructor() {
    this.#bash = spawn("bash", ["--noprofile", "--norc"], {
      cwd: root,
      detached: true,
      // The system's Node first: `trt` must run on Node 20, as the README promises.
      env: {
        PATH: `${dirname(NODE)}:${process.env.PATH}`,
        HOME: process.env.HOME ?? work,
        LANG: "C.UTF-8",
        NO_COLOR: "1",
        README_WORK: work,
      },
    });
    this.#bash.stdout.on("data", (d: Buffer) => {
      this.#out += d.toString();
      for (const w of [...this.#waiters]) {
        const m = new RegExp(`${w.marker} (\\d+)\\n`).exec(this.#out);
        if (m) {
          this.#waiters.splice(this.#waiters.indexOf(w), 1);
          w.resolve(Number(m[1]));
        }
      }
    });
    this.#bash.stdin.write(
      [
        'w="$README_WORK"',
        // A reader's terminal is interactive: the README's `alias trt=…` works there.
        "shopt -s expand_aliases",
        // Notes every answer's status line; a consumer that closed the pipe (`| head`) is not a failure.
        'curl() { local rc=0; command curl -D "$w/headers.$__block.$BASHPID.$RANDOM" "$@" || rc=$?; if [ $rc -eq 23 ]; then return 0; fi; if [ $rc -ne 0 ]; then echo "curl exited $rc: curl $*" >> "$w/failed.$__block"; fi; return $rc; }',
        "set -E",
        `trap 'echo "exit $?: $BASH_COMMAND" >> "$w/failed.$__block"' ERR`,
        "",
      ].join("\n"),
    );
  }

  /** Sources a block; resolves with its exit status when it has returned (its background jobs may run on). */
  run(n: number, code: string): Promise<number> {
    writeFileSync(join(work, `block.${n}.sh`), code);
    const marker = `__README_BLOCK_DONE_${n}__`;
    const done = new Promise<number>((resolve) => this.#waiters.push({ marker, resolve }));
    this.#bash.stdin.write(
      `__block=${n}; source "$w/block.${n}.sh" > "$w/out.${n}" 2> "$w/err.${n}" < /dev/null; echo "${marker} $?"\n`,
    );
    return done;
  }

  /** Waits (bounded) for every background job, then ends the session. */
  async close(withinMs: number): Promise<boolean> {
    const waited = this.run(-1, "wait\n");
    const timer = new Promise<false>((r) => setTimeout(() => r(false), withinMs));
    const ok = await Promise.race([waited.then(() => true), timer]);
    try {
      process.kill(-this.#bash.pid!, "SIGTERM");
    } catch {
      /* already gone */
    }
    return ok;
  }
}

const read = (file: string) => (existsSync(join(work, file)) ? readFileSync(join(work, file), "utf8") : "");

/** The status of every answer a block's curl calls received. */
function statusesOf(n: number): number[] {
  return readdirSync(work)
    .filter((f) => f.startsWith(`headers.${n}.`))
    .flatMap((f) => {
      const statuses = [...read(f).matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].map((m) => Number(m[1]));
      return statuses.length > 0 ? [statuses.at(-1)!] : [];
    });
}

/** What is wrong with a block's run: failed commands, error answers, output unlike the README's. */
function problemsOf(n: number, block: RunBlock, stdout: string): string[] {
  // A block with an output block is judged by what it printed (a `trt cancel` exits 1 by design).
  const problems = block.expected ? [] : read(`failed.${n}`).split("\n").filter(Boolean);
  if (block.expected) {
    problems.push(
      ...matchOutput(block.expected.lang, block.expected.code, stdout).map(
        (p) => `output (${block.expected!.file}:${block.expected!.line}): ${p}`,
      ),
    );
  } else {
    const bad = statusesOf(n).filter((s) => s >= 400);
    if (bad.length > 0) problems.push(`answered ${bad.join(", ")} (a block without an output block must succeed)`);
  }
  return problems;
}

/** The runtime said to try again (503 overloaded: an instant tool's 100 ms on a busy machine), so a reader would. */
const saidTryAgain = (n: number) =>
  statusesOf(n).includes(503) || /"code":\s*"overloaded"|overloaded: /.test(read(`out.${n}`) + read(`err.${n}`));

/** A program block, written to a file of its own and run with the given Node. */
async function runProgram(block: RunBlock, n: number): Promise<{ output: string; problems: string[] }> {
  const dir = join(root, ".build", "readme");
  mkdirSync(dir, { recursive: true });
  // Inside the project, so `tool-runtime/client` resolves to the package's own export (as it
  // does for an installed package) and `./src/gen/…` to the generated code.
  const file = join(dir, `example-${n}.${block.lang === "js" ? "mjs" : "ts"}`);
  writeFileSync(file, pointed(block.code).replaceAll('from "./src/', `from "${root}/src/`));
  const child = spawn(block.lang === "js" ? NODE : NODE_22, [file], {
    cwd: work,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? work },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), BLOCK_WITHIN_MS);
  const rc = await new Promise<number | null>((r) => child.once("exit", r));
  clearTimeout(timer);
  const problems = rc === 0 ? [] : [`exited ${rc}: ${stderr.trim().split("\n").slice(0, 8).join("\n")}`];
  if (block.expected)
    problems.push(
      ...matchOutput(block.expected.lang, block.expected.code, stdout).map(
        (p) => `output (${block.expected!.file}:${block.expected!.line}): ${p}`,
      ),
    );
  return { output: stdout + stderr, problems };
}

describe("the README and the guide", () => {
  let drillsBefore: Drills;
  beforeAll(async () => {
    drillsBefore = await armedDrills((method, path) => asAdmin(method, path));
    await freshRouting();
    // Warm the runtime's isolates: a cold first call of an instant tool can miss its 100 ms.
    await execute({ tool: "math.evaluate", input: { expression: "1" }, limits: { timeout_ms: 20_000 } });
  });
  afterAll(async () => {
    await freshRouting();
    await spendDrills(drillsBefore);
    rmSync(work, { recursive: true, force: true });
    for (const f of written) rmSync(f, { force: true });
  });

  it("has no placeholder a reader must invent in what it runs", () => {
    // Ids and keys are captured into variables the README sets; "…" is only for outputs.
    expect(runs.filter((b) => b.code.includes("…")).map(where)).toEqual([]);
  });

  it("marks every TypeScript and JavaScript block: run, built (file=…) or a fragment", () => {
    const unmarked = blocks.filter(
      (b) =>
        ["ts", "js", "typescript", "javascript"].includes(b.lang) &&
        !b.flags.some((f) => f === "run" || f === "fragment" || f.startsWith("file=")),
    );
    expect(unmarked.map(where)).toEqual([]);
  });

  it(
    "runs every example in order, and each prints what the README shows",
    async () => {
      const session = new Session();
      const report: string[] = [];
      const deferred: { n: number; block: RunBlock }[] = [];
      try {
        for (const [n, block] of runs.entries()) {
          if (block.lang === "js" || block.lang === "ts") {
            let result = await runProgram(block, n);
            for (let retry = 0; retry < 2 && result.problems.length > 0 && /overloaded/.test(result.output); retry++)
              result = await runProgram(block, n);
            report.push(...result.problems.map((p) => `${where(block)}: ${p}`));
            continue;
          }
          const background = /&\s*(#.*)?$/m.test(block.code);
          const once = async () => {
            for (const f of readdirSync(work).filter((f) => f.endsWith(`.${n}`) || f.startsWith(`headers.${n}.`)))
              rmSync(join(work, f));
            const finished = await Promise.race([
              session.run(n, pointed(block.code)),
              new Promise<"slow">((r) => setTimeout(() => r("slow"), BLOCK_WITHIN_MS)),
            ]);
            if (finished === "slow")
              throw new Error(
                `${where(block)} did not finish within ${BLOCK_WITHIN_MS / 1000} s:\n${read(`out.${n}`)}\n${read(`err.${n}`)}`,
              );
          };
          await once();
          if (background) {
            // Its background job prints until its end: judged after everything has run.
            deferred.push({ n, block });
            continue;
          }
          for (
            let retry = 0;
            retry < 2 && problemsOf(n, block, read(`out.${n}`)).length > 0 && saidTryAgain(n);
            retry++
          )
            await once();
          report.push(
            ...problemsOf(n, block, read(`out.${n}`)).map(
              (p) =>
                `${where(block)}: ${p}${read(`err.${n}`) ? `\n  stderr: ${read(`err.${n}`).trim().slice(0, 400)}` : ""}`,
            ),
          );
        }
      } finally {
        if (!(await session.close(60_000))) report.push("background jobs were still running 60 s after the last block");
      }
      for (const { n, block } of deferred)
        report.push(...problemsOf(n, block, read(`out.${n}`)).map((p) => `${where(block)}: ${p}`));
      expect(report).toEqual([]);
    },
    15 * 60_000,
  );
});
