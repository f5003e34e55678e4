/**
 * `npm run start:prod`: what ships (the Workers in SHIPPED, scripts/deploy.ts), run locally under
 * wrangler dev on 127.0.0.1 (port 8787 unless `--port` says otherwise), with the secrets a
 * deployment has instead of .dev.vars: no LOCAL_DEVELOPMENT, so local development's well-known
 * keys open nothing, and the first operator key comes from the bootstrap token printed below.
 * State lives in .wrangler/prod-state (apart from `npm start`'s); the migrations are applied to
 * each audit database in it first. The command lines are scripts/prod-stack.ts's, which the
 * production-mode tests (test/prod/) run too. Extra arguments go to wrangler dev.
 */
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  bootstrapCommand,
  DEFAULT_PORT,
  devCommand,
  envFileText,
  freshSecrets,
  migrationsCommands,
  PROD_STATE,
  shellLine,
  wranglerEnv,
} from "./prod-stack.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** `--port N` or `--port=N` out of the arguments; the rest go to wrangler dev as they are. */
function splitPort(argv: string[]): { port: number; rest: string[] } {
  const rest: string[] = [];
  let port = DEFAULT_PORT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--port" && i + 1 < argv.length) port = Number(argv[++i]);
    else if (a.startsWith("--port=")) port = Number(a.slice("--port=".length));
    else rest.push(a);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number`);
  return { port, rest };
}

const { port, rest } = splitPort(process.argv.slice(2));
const state = join(root, PROD_STATE);
mkdirSync(state, { recursive: true });

// The upstream token key is a deployment's secret, set once: a new one would leave the tenant
// tokens sealed with the old one unreadable, so it stays with the state it sealed.
const keyFile = join(state, "upstream-token-key");
const secrets = freshSecrets(existsSync(keyFile) ? readFileSync(keyFile, "utf8").trim() : undefined);
writeFileSync(keyFile, secrets.UPSTREAM_TOKEN_KEY, { mode: 0o600 });

const secretsDir = mkdtempSync(join(tmpdir(), "tool-runtime-prod-"));
const envFile = join(secretsDir, "prod.env");
writeFileSync(envFile, envFileText(secrets), { mode: 0o600 });
chmodSync(secretsDir, 0o700);
const cleanup = () => rmSync(secretsDir, { recursive: true, force: true });

for (const migrations of migrationsCommands(root, state)) {
  console.log(`$ ${shellLine(migrations)}`);
  // CI=true: apply without asking (a local database, rebuilt from the same migrations any time).
  const run = spawnSync(migrations.command, migrations.args, {
    cwd: root,
    stdio: "inherit",
    env: { ...wranglerEnv(), CI: "true" },
  });
  if (run.status !== 0) {
    cleanup();
    process.exit(run.status ?? 1);
  }
}

const dev = devCommand({ envFile, persistTo: state, port, extra: rest });
const baseUrl = `http://127.0.0.1:${port}`;
console.log(`$ ${shellLine(dev)}

Production mode: the shipped Workers only, secrets from ${envFile} (not .dev.vars).
The bootstrap token of this session (shown once; it works once per state folder, and
\`rm -rf ${PROD_STATE}\` starts over):

  ${secrets.BOOTSTRAP_TOKEN}

Mint the first operator key:

  ${bootstrapCommand(baseUrl, secrets.BOOTSTRAP_TOKEN)}
`);

const child = spawn(dev.command, dev.args, { cwd: root, stdio: "inherit", env: wranglerEnv() });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.once("exit", (code) => {
  cleanup();
  process.exit(code ?? 0);
});
