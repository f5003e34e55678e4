/**
 * `npm run stack`: `wrangler dev` with the arguments package.json gives it (the runtime's dev
 * config, the providers, the intent verifier, the example upstream) and any the caller adds
 * (`npm start -- --port 9000`, the end-to-end stack's `--persist-to`). Before the session starts
 * it writes the dev config (scripts/dev-config.ts) and applies the audit migrations into the
 * same state folder the session will use (scripts/audit-migrations.ts): a new folder starts
 * with the schema, an up-to-date one costs a few seconds and prints nothing.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { applyLocalMigrations, persistToOf } from "./audit-migrations.ts";
import { DEV_CONFIG, writeDevConfig } from "./dev-config.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

writeDevConfig(root);
try {
  await applyLocalMigrations(join(root, DEV_CONFIG), persistToOf(args));
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}

const child = spawn(process.execPath, [join(root, "node_modules", "wrangler", "bin", "wrangler.js"), "dev", ...args], {
  stdio: "inherit",
  env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
});
// Whoever stops this process (Ctrl-C, `npm start`, a test's SIGTERM) stops the session.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
child.once("exit", (code, signal) => process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0)));
