/**
 * The audit database's schema is `migrations/` (wrangler d1 migrations, wrangler's default
 * `migrations_dir`), applied before the runtime runs against a database; the runtime creates no
 * table itself (src/audit/schema.ts). Every local stack applies it first, into the state folder
 * its wrangler dev will use: `npm run stack` (so `npm start` and the end-to-end stack), the bench
 * and the simulation. A deployment applies it with `--remote` (`migrationsApplyArgs`).
 *
 * wrangler asks before applying unless it is not on a terminal or CI is set; here it never is
 * on one (stdin ignored) and CI=true besides, so the step never waits for an answer.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The binding of the audit database in the runtime's wrangler config. */
export const AUDIT_DB_BINDING = "AUDIT_DB";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** wrangler's own entry, run with the Node that runs this script (the project's Node 22). */
const WRANGLER = join(root, "node_modules", "wrangler", "bin", "wrangler.js");

/** `wrangler …` arguments that apply the audit migrations of `config` locally (into `persistTo`, else wrangler's default state folder) or remotely. */
export function migrationsApplyArgs(config: string, target: "--local" | "--remote", persistTo?: string): string[] {
  return [
    "d1",
    "migrations",
    "apply",
    AUDIT_DB_BINDING,
    target,
    "-c",
    config,
    ...(persistTo === undefined ? [] : ["--persist-to", persistTo]),
  ];
}

/** The `--persist-to` among wrangler dev arguments (either spelling), if any. */
export function persistToOf(args: readonly string[]): string | undefined {
  for (const [i, a] of args.entries()) {
    if (a === "--persist-to") return args[i + 1];
    if (a.startsWith("--persist-to=")) return a.slice("--persist-to=".length);
  }
  return undefined;
}

/**
 * Brings the local audit database of `config` up to date. Quiet when it already is; one line
 * naming what it applied otherwise; wrangler's whole output in the error when it fails.
 */
export function applyLocalMigrations(config: string, persistTo?: string): Promise<string[]> {
  const child = spawn(process.execPath, [WRANGLER, ...migrationsApplyArgs(config, "--local", persistTo)], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CI: "true", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0)
        return reject(
          new Error(
            `applying the audit migrations (${migrationsApplyArgs(config, "--local", persistTo).join(" ")}) failed:\n${out}`,
          ),
        );
      const applied = [...new Set(out.match(/\b\d+_[\w.-]*\.sql\b/g) ?? [])];
      if (applied.length > 0)
        process.stderr.write(
          `audit database (local${persistTo ? `, ${persistTo}` : ""}): applied ${applied.join(", ")}\n`,
        );
      resolve(applied);
    });
  });
}
