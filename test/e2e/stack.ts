/**
 * The stack this e2e file runs against, ready. global-setup.ts starts one stack per worker slot
 * and returns at once; a file runs in slot VITEST_POOL_ID (1 … maxWorkers), and no two files
 * hold a slot at the same time, so each file has its stack to itself while it runs.
 *
 * The first file to load this module in a slot waits until its stack answers (/readyz ready,
 * the example caller serving) and records what every file of that stack shares when it came up
 * (registry-state.ts), in the stack's folder; every later file finds both at once. A stack or
 * caller that exited, or never became ready, fails the file with what it printed.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { EXITED, type E2eStack } from "./global-setup.ts";
import { registryState, type RegistryState } from "./registry-state.ts";

const READY_WITHIN_MS = 180_000;

const slot = Number(process.env.VITEST_POOL_ID ?? "1");
const stacks = inject("stacks");
export const stack: E2eStack = stacks[(slot - 1) % stacks.length]!;

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
