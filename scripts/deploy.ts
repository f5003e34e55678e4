/**
 * `npm run deploy`: ships the Workers in SHIPPED, in order — the providers and the intent
 * verifier the runtime binds first, then the runtime. Only these, each with its own wrangler
 * config as it is: the lab providers are local development's (wrangler.dev-overlay.jsonc) and
 * never leave it. `npm test` builds each of these bundles with `wrangler deploy --dry-run`
 * (test/unit/deploy-dry-run.test.ts), so a bundle that would not build fails the tests first.
 * Extra arguments go to every `wrangler deploy` (e.g. `npm run deploy -- --dry-run`).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What `npm run deploy` ships, in deploy order (a Worker before the ones that bind it). */
export const SHIPPED = ["providers/std/wrangler.jsonc", "providers/community/wrangler.jsonc", "verifiers/intent/wrangler.jsonc", "wrangler.jsonc"] as const;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  for (const config of SHIPPED) {
    const run = spawnSync("npx", ["wrangler", "deploy", "-c", config, ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
    if (run.status !== 0) process.exit(run.status ?? 1);
  }
}
