/**
 * The audit database's schema is `migrations/` (wrangler d1 migrations, wrangler's default
 * `migrations_dir`), applied before the runtime runs against a database; the runtime creates no
 * table itself (src/audit/schema.ts). The audit store is one database per shard (AUDIT_DB,
 * AUDIT_DB_1, …: scripts/audit-shards.ts), and every shard of the config gets the migrations,
 * one after another. Every local stack applies them first, into the state folder its wrangler
 * dev will use: `npm run stack` (so `npm start` and the end-to-end stack), the bench and the
 * simulation. A deployment applies them with `--remote` (scripts/deploy/plan.ts).
 *
 * wrangler asks before applying unless it is not on a terminal or CI is set; here it never is
 * on one (stdin ignored) and CI=true besides, so the step never waits for an answer.
 */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AUDIT_DB, auditShards } from "./audit-shards.ts";
import { readJsonc } from "./jsonc.ts";

/** The binding of the audit database's first shard in the runtime's wrangler config. */
export const AUDIT_DB_BINDING = AUDIT_DB;

/** The audit shards' bindings of a wrangler config file (its top level), AUDIT_DB first; refuses a config without AUDIT_DB. */
export function auditBindingsOf(config: string): string[] {
  const d1 = readJsonc<{ d1_databases?: { binding: string }[] }>(config).d1_databases ?? [];
  const bindings = auditShards(d1).map((d) => d.binding);
  if (bindings[0] !== AUDIT_DB) throw new Error(`${config} has no ${AUDIT_DB} binding in d1_databases`);
  return bindings;
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** wrangler's own entry, run with the Node that runs this script (the project's Node 22). */
const WRANGLER = join(root, "node_modules", "wrangler", "bin", "wrangler.js");

/** `wrangler …` arguments that apply the audit migrations to one shard's `binding` of `config` locally (into `persistTo`, else wrangler's default state folder) or remotely. */
export function migrationsApplyArgs(
  config: string,
  target: "--local" | "--remote",
  persistTo?: string,
  binding: string = AUDIT_DB_BINDING,
): string[] {
  return [
    "d1",
    "migrations",
    "apply",
    binding,
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

/** What applying the migrations did to one shard: the files it applied (none when it was up to date). */
export interface ShardMigrations {
  binding: string;
  applied: string[];
}

/**
 * Brings every local audit shard of `config` up to date, one after another. Quiet when they
 * already are; one line per shard naming what it applied otherwise; wrangler's whole output in
 * the error when one fails (the shards after it are then left as they were).
 */
export async function applyLocalMigrations(config: string, persistTo?: string): Promise<ShardMigrations[]> {
  const done: ShardMigrations[] = [];
  for (const binding of auditBindingsOf(config))
    done.push({ binding, applied: await applyToShard(config, binding, persistTo) });
  return done;
}

function applyToShard(config: string, binding: string, persistTo?: string): Promise<string[]> {
  const args = migrationsApplyArgs(config, "--local", persistTo, binding);
  const child = spawn(process.execPath, [WRANGLER, ...args], {
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
        return reject(new Error(`applying the audit migrations to ${binding} (${args.join(" ")}) failed:\n${out}`));
      const applied = [...new Set(out.match(/\b\d+_[\w.-]*\.sql\b/g) ?? [])];
      if (applied.length > 0)
        process.stderr.write(
          `audit database ${binding} (local${persistTo ? `, ${persistTo}` : ""}): applied ${applied.join(", ")}\n`,
        );
      resolve(applied);
    });
  });
}
