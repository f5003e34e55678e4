/**
 * Starts production mode as `npm run start:prod` runs it — the same command lines, from
 * scripts/prod-stack.ts — on free loopback ports with a state folder of its own. Readiness is
 * waited for on /healthz, which touches nothing (/readyz reads the registry, and that would be
 * a first request: test/prod/opening.ts makes the stack's first requests, before any test).
 *
 * It all runs in the background, from when the unit files end (test/boot-gate.ts): vitest runs
 * every project's global setup before the first file of any project. Whether the stack started
 * is written to a file the tests wait for (test/prod/opening.ts), with why when it could not.
 *
 * Besides the bootstrap, the tests need an operator and a tenant that do not depend on it:
 * two API keys written into the stack's KV before it starts (the record the runtime's own key
 * store writes, src/auth/api-keys.ts), as an operator could with `wrangler kv bulk put`.
 */
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { API_KEY_PREFIX, hashKey } from "../../src/auth/api-keys.ts";
import type { ApiKeyRecord } from "../../src/contract.ts";
import {
  devCommand,
  envFileText,
  freshSecrets,
  migrationsCommands,
  RUNTIME_CONFIG,
  wranglerEnv,
  type Command,
} from "../../scripts/prod-stack.ts";
import { whenWanted } from "../boot-gate.ts";
import { reservePort } from "../e2e/free-port.ts";

export interface ProdStack {
  baseUrl: string;
  /** The wrangler dev command line the stack runs (devCommand's). */
  command: Command;
  bootstrapToken: string;
  bootstrapAs: { tenant: string; agent: string };
  /** An operator key and a tenant key (channels ["std"]) written into KV before the start. */
  operatorKey: string;
  tenantKey: string;
  tenant: string;
  /** Written once the stack answers /healthz (`{ ready: true }`), or why it could not start (`{ error }`). */
  readyFile: string;
  /** A file holding what the stack printed. */
  stackLog: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    prod: ProdStack;
  }
}

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const READY_WITHIN_MS = 120_000;
const token = () => `${API_KEY_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")}`;

/** Runs a wrangler command to its end (before the stack starts); throws with its output when it fails. */
async function runToEnd({ command, args }: Command) {
  await promisify(execFile)(command, args, {
    cwd: root,
    encoding: "utf8",
    env: { ...wranglerEnv(), CI: "true" },
    timeout: 120_000,
    maxBuffer: 16 << 20,
  }).catch((err: { code?: number; stdout?: string; stderr?: string }) => {
    throw new Error(`${command} ${args.join(" ")} failed (${err.code}):\n${err.stdout}\n${err.stderr}`);
  });
}

export default async function setup(project: TestProject) {
  // Held until the stack starts (reservePort): it starts later, as the unit files end.
  const held = await Promise.all([reservePort(), reservePort()]);
  const [port, inspectorPort] = held.map((h) => h.port);
  const releasePorts = () => Promise.all(held.map((h) => h.release()));
  const state = mkdtempSync(join(tmpdir(), "tool-runtime-prod-state-"));
  const secretsDir = mkdtempSync(join(tmpdir(), "tool-runtime-prod-"));
  const stackLog = join(secretsDir, "stack.log");
  const envFile = join(secretsDir, "prod.env");
  const secrets = freshSecrets();
  writeFileSync(envFile, envFileText(secrets), { mode: 0o600 });
  const removeFolders = () => {
    rmSync(state, { recursive: true, force: true });
    rmSync(secretsDir, { recursive: true, force: true });
  };

  const tenant = `prod-${crypto.randomUUID().slice(0, 8)}`;
  const operatorKey = token();
  const tenantKey = token();
  const readyFile = join(secretsDir, "ready.json");
  const bootstrapAs = { tenant: "ops", agent: `first-operator-${crypto.randomUUID().slice(0, 8)}` };
  const command = devCommand({ envFile, persistTo: state, port, extra: ["--inspector-port", String(inspectorPort)] });
  const baseUrl = `http://127.0.0.1:${port}`;
  project.provide("prod", {
    baseUrl,
    command,
    bootstrapToken: secrets.BOOTSTRAP_TOKEN,
    bootstrapAs,
    operatorKey,
    tenantKey,
    tenant,
    readyFile,
    stackLog,
  });

  // Everything else in the background (above); its failure reaches the tests through the file,
  // and the teardown stops whatever had started.
  let stopStack: () => Promise<void> = async () => {};
  const open = async (): Promise<void> => {
    // One after another: each audit shard's database (scripts/audit-shards.ts).
    for (const migrations of migrationsCommands(root, state)) await runToEnd(migrations);
    const records: [string, Omit<ApiKeyRecord, "created_at">][] = [
      [
        operatorKey,
        {
          key_id: "key_seeded_operator",
          tenant: "ops",
          agent: "seeded-operator",
          capabilities: [],
          channels: [],
          role: "admin",
        },
      ],
      [
        tenantKey,
        {
          key_id: "key_seeded_tenant",
          tenant,
          agent: "dev-agent",
          capabilities: [],
          channels: ["std"],
          role: "tenant",
        },
      ],
    ];
    const entries = [];
    for (const [key, fields] of records) {
      const record: ApiKeyRecord = { ...fields, created_at: new Date().toISOString() };
      const hash = await hashKey(key);
      entries.push(
        { key: `hash:${hash}`, value: JSON.stringify(record) },
        { key: `id:${record.key_id}`, value: hash, metadata: record },
      );
    }
    const seed = join(secretsDir, "keys.json");
    writeFileSync(seed, JSON.stringify(entries));
    await runToEnd({
      command: "npx",
      args: [
        "wrangler",
        "kv",
        "bulk",
        "put",
        seed,
        "--binding",
        "API_KEYS",
        "--local",
        "--persist-to",
        state,
        "-c",
        RUNTIME_CONFIG,
      ],
    });

    await releasePorts();
    const child = spawn(command.command, command.args, {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...wranglerEnv(), CI: "true" },
    });
    let log = "";
    const keep = (d: Buffer) => {
      log += d;
      appendFileSync(stackLog, d);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    stopStack = async () => {
      if (child.exitCode === null && child.pid) {
        process.kill(-child.pid, "SIGTERM");
        const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 10_000);
        await exited;
        clearTimeout(timer);
      }
      child.stdout!.off("data", keep);
      child.stderr!.off("data", keep);
    };

    for (const deadline = Date.now() + READY_WITHIN_MS; ;) {
      if (child.exitCode !== null) throw new Error(`wrangler dev exited early:\n${log}`);
      const up = await fetch(`${baseUrl}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (up) break;
      if (Date.now() > deadline)
        throw new Error(`the production-mode stack did not answer within ${READY_WITHIN_MS} ms:\n${log}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  // Started when the gate opens (test/boot-gate.ts: as the unit files end, or when the file asks).
  let stopping = false;
  let opened: Promise<void> | undefined;
  const { wanted, cancel } = whenWanted(secretsDir);
  void wanted.then(() => {
    if (stopping) return;
    opened = open().then(
      () => writeFileSync(readyFile, JSON.stringify({ ready: true })),
      (err: unknown) => writeFileSync(readyFile, JSON.stringify({ error: String((err as Error)?.stack ?? err) })),
    );
  });
  return async () => {
    stopping = true;
    cancel();
    await releasePorts();
    await opened;
    await stopStack();
    removeFolders();
  };
}
