/**
 * When the e2e and prod stacks start. vitest runs every project's global setup before the
 * first file of any project, so stacks started there booted beside the unit files: on a clean
 * clone the unit files took 46 s alone and 92–102 s beside the boots of three stacks, three
 * example callers and the production-mode stack (the cores were busy throughout), while the
 * integration files after them left the cores a third idle (vmstat). So a global setup
 * decides its ports and folders at once and starts its processes when the gate opens:
 *
 * - when the first file that is not a unit file starts (BootGateReporter, in vitest.config.ts),
 *   or at once when the run has no unit files;
 * - or when a file asks for its stack (a file named WANTED in the stack's folder): the
 *   reporter is replaced when `--reporter` is given on the command line (add
 *   `--reporter=./test/boot-gate.ts` to keep it), and a file that needs its stack must never
 *   wait for a gate nobody opens.
 *
 * The gate lives on globalThis: the reporter comes with the config, the global setups through
 * vitest's module runner, two copies of this module in one process.
 */
import { existsSync, writeFileSync } from "node:fs";
import type { Reporter, TestModule, TestSpecification } from "vitest/node";

/** The file a test file writes into its stack's folder to have it started now. */
export const WANTED = "wanted";

interface Gate {
  opened: Promise<void>;
  open: () => void;
}

const KEY = Symbol.for("tool-runtime.tests.boot-gate");

function gate(): Gate {
  const holder = globalThis as { [KEY]?: Gate };
  if (!holder[KEY]) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    holder[KEY] = { opened, open };
  }
  return holder[KEY];
}

/** Resolves when the gate opens or `folder` holds WANTED; `cancel` stops looking (teardown). */
export function whenWanted(folder: string): { wanted: Promise<void>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  let cancel = () => {};
  const asked = new Promise<void>((resolve) => {
    const look = () => (existsSync(`${folder}/${WANTED}`) ? resolve() : (timer = setTimeout(look, 200)));
    look();
    cancel = () => clearTimeout(timer);
  });
  const wanted = Promise.race([gate().opened, asked]).finally(cancel);
  return { wanted, cancel };
}

/** Asks for the stacks whose folders these are, now (a test file about to wait for one). */
export function want(...folders: string[]): void {
  for (const folder of folders) writeFileSync(`${folder}/${WANTED}`, "");
}

/** Opens the gate as the unit files end: when the first file of any other project starts. */
export class BootGateReporter implements Reporter {
  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    if (!specifications.some((s) => s.project.name === "unit")) gate().open();
  }

  onTestModuleStart(module: TestModule): void {
    if (module.project.name !== "unit") gate().open();
  }
}

/** For `--reporter=./test/boot-gate.ts` beside other reporters given on the command line. */
export default BootGateReporter;
