/**
 * Starts the real stack that `npm start` runs (`npm run stack`: wrangler dev with the runtime
 * and every provider config) on free loopback ports with its own state folder, waits until
 * /readyz says ready, and stops it (by its process group id) when the run ends. `npm run stack`
 * applies the audit migrations into that folder (its `--persist-to`) before wrangler dev starts
 * (scripts/stack.ts), so the stack's database is made as every database is; /readyz is not
 * ready until it has been.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import type { TestProject } from "vitest/node";
import { freePort } from "./free-port.ts";
import { registryState, type RegistryState } from "./registry-state.ts";
import { TEST_APPROVALS, TEST_TENANT_FAMILIES } from "./tenants.ts";
import { SAMPLES_DIR } from "../openapi/samples.ts";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    /** The example caller Worker (Workers RPC to the runtime). */
    callerUrl: string;
    /** The test identity provider's signing key (its public half is the stack's JWT_JWKS). */
    jwtPrivateKey: JWK;
    jwtIssuer: string;
    jwtAudience: string;
    /** A token whose `groups` claim holds this is an operator's (JWT_OPERATOR_CLAIM/VALUES). */
    jwtOperatorGroup: string;
    /** The loopback port the std provider may reach (EGRESS_ALLOW); http-request.test.ts listens on it. */
    egressPort: number;
    /** What every file shares (registry, upstreams, audit drills) when the stack came up (test/e2e/isolation.ts). */
    registryBaseline: RegistryState;
    /** A file holding what the stack has printed so far (its terminal, as a reader of `npm start` sees it). */
    stackLog: string;
    /** Loopback ports an upstream MCP server may be registered at by URL (UPSTREAM_EGRESS_ALLOW); upstreams.test.ts serves on them. */
    upstreamPorts: number[];
    /**
     * This stack's BOOTSTRAP_TOKEN. The bootstrap works once per stack, so one test uses it
     * (test/e2e/cli.test.ts, `trt admin bootstrap`); any other file may only see it refused.
     */
    bootstrapToken: string;
  }
}

const JWT_ISSUER = "https://idp.test.invalid";
const JWT_AUDIENCE = "tool-runtime-e2e";
/** The `groups` value that makes a token an operator's in the e2e stack. */
const JWT_OPERATOR_GROUP = "tool-runtime-operators";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const READY_WITHIN_MS = 120_000;

export default async function setup(project: TestProject) {
  // This run's response samples only (conformance.ts writes them; the posttest check reads them).
  rmSync(SAMPLES_DIR, { recursive: true, force: true });
  const port = await freePort();
  const inspectorPort = await freePort();
  const state = mkdtempSync(join(tmpdir(), "tool-runtime-e2e-"));
  // A dev registry of this run's own: the caller Worker finds this stack, never an `npm start`
  // or another test run on the same machine (wrangler reads WRANGLER_REGISTRY_PATH).
  const registry = join(state, "dev-registry");
  // A throwaway identity provider: the stack trusts its public key for this run only.
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: "e2e-1", alg: "ES256", use: "sig" };
  // Its tokens are operators' when their `groups` claim holds "tool-runtime-operators" (never by `role`).
  const jwtVars = [
    `JWT_JWKS:${JSON.stringify({ keys: [publicJwk] })}`,
    `JWT_ISSUER:${JWT_ISSUER}`,
    `JWT_AUDIENCE:${JWT_AUDIENCE}`,
    `JWT_OPERATOR_CLAIM:groups`,
    `JWT_OPERATOR_VALUES:${JWT_OPERATOR_GROUP}`,
  ];
  // The runtime's own tenant limits, plus the test-only tenant families (test/e2e/tenants.ts).
  const { unstable_readConfig } = await import("wrangler");
  const shipped = (
    unstable_readConfig({ config: join(root, "wrangler.jsonc") }).vars as {
      TENANT_LIMITS: { default: object; tenants?: object };
    }
  ).TENANT_LIMITS;
  const limitsVar = `TENANT_LIMITS:${JSON.stringify({ ...shipped, tenants: { ...(shipped.tenants ?? {}), ...TEST_TENANT_FAMILIES } })}`;
  // Test-only approval rules (docs/contract.md#approvals): nothing ships any.
  const approvalsVar = `APPROVALS:${JSON.stringify(TEST_APPROVALS)}`;
  // The one-time operator bootstrap's secret, for this stack only.
  const bootstrapToken = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const bootstrapVar = `BOOTSTRAP_TOKEN:${bootstrapToken}`;
  // http.request's egress allow-list, for this stack only: the one loopback port the e2e
  // server listens on. `--var` reaches only the first config of a multi-config wrangler dev
  // (tried), so it travels as process env, which wrangler dev hands to every Worker without a
  // .dev.vars of its own when CLOUDFLARE_INCLUDE_PROCESS_ENV is set (the runtime has one).
  const egressPort = await freePort();
  const egressEnv = { CLOUDFLARE_INCLUDE_PROCESS_ENV: "true", EGRESS_ALLOW: `127.0.0.1:${egressPort}` };
  // Upstream MCP servers the tests register by URL live on loopback: these ports only, for this
  // stack only (the runtime is the session's first config, so --var reaches it).
  const upstreamPorts = [await freePort(), await freePort()];
  const upstreamVar = `UPSTREAM_EGRESS_ALLOW:${upstreamPorts.map((p) => `127.0.0.1:${p}`).join(",")}`;
  const child = spawn(
    "npm",
    [
      "run",
      "stack",
      "--",
      "--port",
      String(port),
      "--inspector-port",
      String(inspectorPort),
      "--persist-to",
      state,
      ...[...jwtVars, limitsVar, upstreamVar, approvalsVar, bootstrapVar].flatMap((v) => ["--var", v]),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CI: "true", WRANGLER_REGISTRY_PATH: registry, ...egressEnv },
    },
  );
  let log = "";
  const logDir = mkdtempSync(join(tmpdir(), "tool-runtime-e2e-log-"));
  const stackLog = join(logDir, "stack.log");
  const keep = (d: Buffer) => {
    log += d;
    appendFileSync(stackLog, d);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));

  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      process.kill(-child.pid, "SIGTERM");
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
    // Output still in the pipes may arrive after the exit: nothing more is written to the log.
    child.stdout!.off("data", keep);
    child.stderr!.off("data", keep);
    rmSync(state, { recursive: true, force: true });
    rmSync(logDir, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`wrangler dev exited early:\n${log}`);
    }
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the stack was not ready within ${READY_WITHIN_MS} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  // The example caller Worker (as `npm start` runs it) in its own session: it reaches the
  // runtime over a service binding through wrangler's local dev registry.
  const callerPort = await freePort();
  const callerInspector = await freePort();
  const caller = spawn(
    "npx",
    [
      "wrangler",
      "dev",
      "-c",
      "examples/caller/wrangler.jsonc",
      "--ip",
      "127.0.0.1",
      "--port",
      String(callerPort),
      "--inspector-port",
      String(callerInspector),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        CI: "true",
        WRANGLER_SEND_METRICS: "false",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_REGISTRY_PATH: registry,
      },
    },
  );
  let callerLog = "";
  caller.stdout!.on("data", (d) => (callerLog += d));
  caller.stderr!.on("data", (d) => (callerLog += d));
  const callerExited = new Promise((resolve) => caller.once("exit", resolve));
  const stopAll = async () => {
    if (caller.exitCode === null && caller.pid) {
      process.kill(-caller.pid, "SIGTERM");
      const t = setTimeout(() => caller.pid && process.kill(-caller.pid, "SIGKILL"), 10_000);
      await callerExited;
      clearTimeout(t);
    }
    await stop();
  };
  const callerUrl = `http://127.0.0.1:${callerPort}`;
  for (const deadline = Date.now() + READY_WITHIN_MS; ;) {
    if (caller.exitCode !== null) {
      await stopAll();
      throw new Error(`the example caller exited early:\n${callerLog}`);
    }
    const ok = await fetch(`${callerUrl}/tools`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stopAll();
      throw new Error(`the example caller was not ready:\n${callerLog}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  project.provide("callerUrl", callerUrl);
  project.provide("baseUrl", baseUrl);
  project.provide("jwtPrivateKey", { ...(await exportJWK(privateKey)), kid: "e2e-1", alg: "ES256" });
  project.provide("jwtIssuer", JWT_ISSUER);
  project.provide("jwtAudience", JWT_AUDIENCE);
  project.provide("jwtOperatorGroup", JWT_OPERATOR_GROUP);
  project.provide("egressPort", egressPort);
  const adminKey = /^DEV_ADMIN_KEY=(.*)$/m.exec(readFileSync(join(root, ".dev.vars"), "utf8"))![1];
  project.provide(
    "registryBaseline",
    await registryState(async (method, path) => {
      const res = await fetch(`${baseUrl}${path}`, { method, headers: { authorization: `Bearer ${adminKey}` } });
      return { status: res.status, body: await res.json() };
    }),
  );
  project.provide("stackLog", stackLog);
  project.provide("upstreamPorts", upstreamPorts);
  project.provide("bootstrapToken", bootstrapToken);
  return stopAll;
}
