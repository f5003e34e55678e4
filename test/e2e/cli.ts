/**
 * Runs the built `trt` (dist/cli/trt.js, from `npm run build:client`) as a user would: a child
 * process with TRT_URL and TRT_KEY, on the machine's own Node when it has one (Node 20 here:
 * the built CLI must not need TypeScript stripping), else on the Node running the tests.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { baseUrl, DEV_KEY } from "./http.ts";

export const TRT = fileURLToPath(new URL("../../dist/cli/trt.js", import.meta.url));
export const NODE = existsSync("/usr/bin/node") ? "/usr/bin/node" : process.execPath;
/** A profiles file that does not exist, so the machine user's own profiles play no part (tests pass TRT_CONFIG to use one). */
const NO_PROFILES = join(mkdtempSync(join(tmpdir(), "trt-e2e-")), "config.json");

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  /** Everything written so far. */
  out(): { stdout: string; stderr: string };
  /** Resolves when `test` holds for the output so far (bounded). */
  until(test: (o: { stdout: string; stderr: string }) => boolean, withinMs?: number): Promise<void>;
  done: Promise<Run>;
}

export function start(args: string[], o: { env?: Record<string, string | undefined>; stdin?: string } = {}): Started {
  const child = spawn(NODE, [TRT, ...args], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TRT_CONFIG: NO_PROFILES,
      TRT_URL: baseUrl,
      TRT_KEY: DEV_KEY,
      ...o.env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout!.on("data", (d) => ((stdout += d), waiters.forEach((w) => w())));
  child.stderr!.on("data", (d) => ((stderr += d), waiters.forEach((w) => w())));
  // A command that exits before reading its input closes the pipe first (EPIPE on our end,
  // seed 307637): what it printed and its exit code are the evidence, not the write.
  child.stdin!.on("error", () => {});
  child.stdin!.end(o.stdin ?? "");
  const done = new Promise<Run>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const out = () => ({ stdout, stderr });
  return {
    child,
    out,
    done,
    until(test, withinMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!test(out())) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(
          () => (waiters.delete(check), reject(new Error(`not seen within ${withinMs} ms:\n${stdout}\n${stderr}`))),
          withinMs,
        );
        waiters.add(check);
        check();
      });
    },
  };
}

export const trt = (args: string[], o?: Parameters<typeof start>[1]) => start(args, o).done;
