/**
 * The command lines of production mode, in one place: `npm run start:prod`
 * (scripts/start-prod.ts) runs them, and the production-mode e2e stack (test/prod/) runs the
 * same ones, so the tests prove what the script runs.
 *
 * Production mode is the Workers in SHIPPED and nothing else (no lab provider, no example
 * upstream, no dev overlay) under `wrangler dev` on 127.0.0.1, with the secrets a deployment
 * has instead of .dev.vars: wrangler dev reads .dev.vars beside the runtime's config only when
 * no `--env-file` is given (wrangler 4's getVarsForDev), and `--env-file` reaches the session's
 * first config only, which is the runtime here. So no LOCAL_DEVELOPMENT, no well-known keys.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { auditBindingsOf } from "./audit-migrations.ts";
import { SHIPPED } from "./deploy.ts";

/** The runtime's config. Deploy order puts a Worker before the ones that bind it, so the runtime, which binds the rest, is last. */
export const RUNTIME_CONFIG: string = SHIPPED[SHIPPED.length - 1];

/**
 * wrangler dev's configs: the runtime first — the session's first Worker is the one on the
 * port and the only one `--env-file` and `--var` reach — then the Workers it binds.
 */
export const PROD_CONFIGS: readonly string[] = [RUNTIME_CONFIG, ...SHIPPED.filter((c) => c !== RUNTIME_CONFIG)];

/** Where `npm run start:prod` keeps its local state (KV, D1, Durable Objects), apart from `npm start`'s. */
export const PROD_STATE = ".wrangler/prod-state";
export const DEFAULT_PORT = 8787;

/**
 * The environment for every wrangler this mode runs: no metrics and no cf fetch (no internet),
 * and never process.env as secrets (CLOUDFLARE_INCLUDE_PROCESS_ENV would hand a shell's
 * variables to the runtime, which a deployment does not have).
 */
export function wranglerEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
  delete env.CLOUDFLARE_INCLUDE_PROCESS_ENV;
  return env;
}

/** The runtime's secrets in a deployment (`wrangler secret put`). */
export interface ProdSecrets {
  /** Mints the first operator key, once (POST /v1/admin/bootstrap). */
  BOOTSTRAP_TOKEN: string;
  /** Seals tenants' own upstream tokens: 32 random bytes, base64 (UPSTREAM_TOKEN_KEY_SECRET in the runtime's config). */
  UPSTREAM_TOKEN_KEY: string;
}

const randomBase64 = (bytes: number) => Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("base64");

/** Fresh secrets; `upstreamTokenKey` keeps a state folder's earlier key, so the tokens sealed with it stay readable. */
export function freshSecrets(upstreamTokenKey?: string): ProdSecrets {
  return {
    BOOTSTRAP_TOKEN: `trt_boot_${randomBase64(24).replace(/[+/=]/g, "")}`,
    UPSTREAM_TOKEN_KEY: upstreamTokenKey ?? randomBase64(32),
  };
}

/** The env file's text (dotenv: one NAME=value a line; base64 and the token need no quoting). */
export const envFileText = (secrets: ProdSecrets): string =>
  `# Written by scripts/prod-stack.ts for one production-mode session; deleted when it stops.\n${Object.entries(secrets)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n")}\n`;

export interface Command {
  command: string;
  args: string[];
}

/**
 * `wrangler d1 migrations apply` into `persistTo` for each audit shard of the runtime's config
 * (AUDIT_DB, AUDIT_DB_1, …: scripts/audit-shards.ts), to run one after another; none while the
 * repository has no migrations/ folder (the code then creates the schema on first use).
 */
export function migrationsCommands(root: string, persistTo: string): Command[] {
  if (!existsSync(join(root, "migrations"))) return [];
  return auditBindingsOf(join(root, RUNTIME_CONFIG)).map((binding) => ({
    command: "npx",
    args: [
      "wrangler",
      "d1",
      "migrations",
      "apply",
      binding,
      "--local",
      "--persist-to",
      persistTo,
      "-c",
      RUNTIME_CONFIG,
    ],
  }));
}

/** The production-mode wrangler dev: SHIPPED's configs, loopback, its own state, the env file instead of .dev.vars; `extra` goes last (e.g. --inspector-port). */
export function devCommand(options: { envFile: string; persistTo: string; port: number; extra?: string[] }): Command {
  return {
    command: "npx",
    args: [
      "wrangler",
      "dev",
      ...PROD_CONFIGS.flatMap((c) => ["-c", c]),
      "--ip",
      "127.0.0.1",
      "--port",
      String(options.port),
      "--persist-to",
      options.persistTo,
      "--env-file",
      options.envFile,
      ...(options.extra ?? []),
    ],
  };
}

/** What an operator runs once to get the first operator key. */
export const bootstrapCommand = (baseUrl: string, token: string): string =>
  `curl -sS -X POST ${baseUrl}/v1/admin/bootstrap -H 'Authorization: Bearer ${token}' -H 'content-type: application/json' -d '{"tenant":"ops","agent":"operator"}'`;

/** A command as a shell line, for the terminal. */
export const shellLine = ({ command, args }: Command): string =>
  [command, ...args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ");
