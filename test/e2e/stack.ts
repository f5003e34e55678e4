/**
 * The stack this e2e file runs against, ready. global-setup.ts starts as many stacks as files may
 * run at once and returns at once; each file claims one no other file holds (a lock file in the
 * stack's folder, created exclusively, holding the file's process id) and gives it back when it
 * ends (isolation.ts, last of all; or when its process exits), so each file has its stack to
 * itself while it runs. (vitest's VITEST_POOL_ID cannot tell them apart: after a group of files
 * that share workers, `isolate: false`, it hands every later file the same slot — tried.)
 *
 * Each stack starts when the unit files end, or when a file first asks for it (test/boot-gate.ts).
 * The first file to use a stack waits until it answers (/readyz ready, the example caller
 * serving) and records what every file of that stack shares when it came up
 * (registry-state.ts), in the stack's folder; every later file finds both at once. A stack or
 * caller that exited, or never became ready, fails the file with what it printed.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { want } from "../boot-gate.ts";
import { EXITED, type E2eStack } from "./global-setup.ts";
import { registryState, type RegistryState } from "./registry-state.ts";

const READY_WITHIN_MS = 180_000;
const CLAIM_WITHIN_MS = 60_000;
const stacks = inject("stacks");

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
};

let held: string | undefined;
/** Gives this file's stack back (idempotent). */
export function releaseStack(): void {
  if (held) rmSync(held, { force: true });
  held = undefined;
}
process.on("exit", releaseStack);

async function claim(): Promise<E2eStack> {
  const deadline = Date.now() + CLAIM_WITHIN_MS;
  for (;;) {
    for (const candidate of stacks) {
      const lock = join(candidate.stateDir, "in-use");
      try {
        writeFileSync(lock, String(process.pid), { flag: "wx" });
        held = lock;
        return candidate;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        // Its holder died without giving it back (a crashed worker): free again.
        let holder = 0;
        try {
          holder = Number(readFileSync(lock, "utf8")) || 0;
        } catch {
          /* given back meanwhile: the next round takes it */
        }
        if (holder > 0 && !alive(holder)) rmSync(lock, { force: true });
      }
    }
    if (Date.now() > deadline)
      throw new Error(`no e2e stack came free within ${CLAIM_WITHIN_MS} ms (${stacks.length} for this run)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The stacks start when the unit files end (test/boot-gate.ts); a file run without them, or
// with the gate's reporter replaced on the command line, asks for them itself.
want(...stacks.map((s) => s.stateDir));
export const stack: E2eStack = await claim();

/** One value of this file's stack (what `inject` gave when there was one stack). */
export const provided = <K extends keyof E2eStack>(key: K): E2eStack[K] => stack[key];

const realFetch = globalThis.fetch;
const answers = (url: string) =>
  realFetch(url).then(
    (res) => (void res.body?.cancel(), res.status === 200),
    () => false,
  );
const tail = (file: string) => readFileSync(file, "utf8").slice(-20_000);

async function ready(): Promise<void> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    const exited = join(stack.stateDir, EXITED);
    if (existsSync(exited))
      throw new Error(
        `${readFileSync(exited, "utf8")} before its files ran:\n${tail(stack.stackLog)}\n${tail(stack.callerLog)}`,
      );
    if ((await answers(`${stack.baseUrl}/readyz`)) && (await answers(`${stack.callerUrl}/tools`))) return;
    if (Date.now() > deadline)
      throw new Error(
        `the stack or its example caller was not ready within ${READY_WITHIN_MS} ms:\n${tail(stack.stackLog)}\n${tail(stack.callerLog)}`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
}

await ready();

/** What every file of this stack shares, as the first file found it (isolation.ts compares each file's leftovers with it). */
export const registryBaseline: RegistryState = await (async () => {
  const file = join(stack.stateDir, "registry-baseline.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as RegistryState;
  const adminKey = /^DEV_ADMIN_KEY=(.*)$/m.exec(readFileSync(new URL("../../.dev.vars", import.meta.url), "utf8"))![1];
  const baseline = await registryState(async (method, path) => {
    const res = await realFetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}` },
    });
    return { status: res.status, body: await res.json() };
  });
  writeFileSync(file, JSON.stringify(baseline));
  return baseline;
})();
