#!/usr/bin/env node
/**
 * `trt`'s launcher (package.json "bin"), plain JavaScript so that it runs right after
 * `npm install`, before any build. It runs the command line from its TypeScript source when
 * this Node strips types (Node 22.18+ does by default; `npx` puts the project's Node 22 from
 * node_modules/.bin first on PATH); on an older Node it starts the project's Node 22 on the
 * same source; without either it runs the build (`npm run build:client` → dist/cli/trt.js,
 * which needs only Node 20).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = new URL("../cli/trt.ts", import.meta.url);
const built = new URL("../dist/cli/trt.js", import.meta.url);
const projectNode = fileURLToPath(new URL("../node_modules/.bin/node", import.meta.url));
const hasSource = existsSync(source);

if (hasSource && process.features.typescript) {
  try {
    await import(source.href);
  } catch (err) {
    // Node strips no types under a node_modules folder (this package installed as a dependency).
    if (err?.code !== "ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING" || !existsSync(built)) throw err;
    await import(built.href);
  }
} else if (hasSource && existsSync(projectNode) && !process.env.TRT_LAUNCHED) {
  // The child gets the terminal's Ctrl-C itself (same process group): this process only waits.
  process.on("SIGINT", () => {});
  const child = spawn(projectNode, [fileURLToPath(source), ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, TRT_LAUNCHED: "1" },
  });
  // A signal sent to this process alone (not the terminal's) is passed on.
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  child.on("exit", (code, signal) => {
    process.exitCode = code ?? (signal === "SIGINT" ? 130 : 1);
  });
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    "trt: cannot start: this Node cannot run cli/trt.ts and dist/cli/trt.js is not built; run npm install, or npm run build:client\n",
  );
  process.exitCode = 2;
}
