/**
 * Builds the typed client and the `trt` command line to plain ESM JavaScript, so that Node 20
 * (which cannot run `.ts`), browsers and Workers use them without TypeScript tooling:
 *
 *   client/dist/index.js, index.d.ts   the client package (client/package.json, `npm pack` in
 *                                       client/); types bundled (the contract's types are
 *                                       inlined, so the declarations need nothing from src/)
 *   dist/cli/trt.js                    `trt` (package.json "bin"), the client bundled in
 *
 * rolldown is the bundler vite already uses; rolldown-plugin-dts bundles the declarations.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { dts } from "rolldown-plugin-dts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist");
const clientOut = join(root, "client", "dist");
rmSync(out, { recursive: true, force: true });
rmSync(clientOut, { recursive: true, force: true });

// Node 20 is the oldest runtime we promise; es2022 covers it, current browsers and Workers.
const target = "es2022";

await build({
  cwd: root,
  input: { index: "client/index.ts" },
  platform: "neutral",
  transform: { target },
  // A bare import is a dependency of the package (eventsource-parser), left to the user's
  // resolver, or a type reached through src/ that the declarations inline.
  external: (id) => !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0"),
  plugins: [dts({ tsconfig: "tsconfig.client.json" })],
  output: { dir: clientOut, format: "esm", sourcemap: true },
  logLevel: "warn",
  // Declarations go through the TypeScript compiler: seconds, and that is expected.
  checks: { bundlerTimings: false },
});

await build({
  cwd: root,
  input: { trt: "cli/trt.ts" },
  platform: "node",
  transform: { target },
  output: { dir: join(out, "cli"), format: "esm", banner: "#!/usr/bin/env node", sourcemap: true },
  logLevel: "warn",
});
chmodSync(join(out, "cli", "trt.js"), 0o755);

// The built CLI is an ES module whatever the surrounding package says.
writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }, null, 2) + "\n");
const size = (f: string) => `${(readFileSync(f).length / 1024).toFixed(1)} KiB`;
console.log(
  `client -> client/dist/ (index.js ${size(join(clientOut, "index.js"))}), cli -> dist/cli/ (trt.js ${size(join(out, "cli", "trt.js"))})`,
);
