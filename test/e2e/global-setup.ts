/**
 * Starts the real stack that `npm start` runs (`npm run stack`: wrangler dev with the runtime
 * and every provider config) on free loopback ports with its own state folder, plus the example
 * caller Worker in a session of its own, and stops them (by their process group ids) when the
 * run ends. `npm run stack` applies the audit migrations into that folder (its `--persist-to`)
 * before wrangler dev starts (scripts/stack.ts), so the stack's database is made as every
 * database is; /readyz is not ready until it has been.
 *
 * One stack per e2e worker (the project's `maxWorkers`): two files run at once, each against a
 * stack no other file is using at that moment (test/e2e/stack.ts claims a free one), so
 * what one file changes for everyone (isolation.ts) still reaches no file running beside it.
 *
 * It returns without waiting for them: vitest runs every project's global setup before the
 * first file of any project, so waiting here would hold the unit and integration files back
 * for the stacks' start-up. The first file to use a stack waits until it is ready (stack.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import type { TestProject } from "vitest/node";
import { whenWanted } from "../boot-gate.ts";
import { freePort, reservePort } from "./free-port.ts";
import { TEST_APPROVALS, TEST_TENANT_FAMILIES } from "./tenants.ts";
import { SAMPLES_DIR } from "../openapi/samples.ts";

/** One stack, as its files reach it (test/e2e/stack.ts hands each file the one it runs against). */
export interface E2eStack {
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
  /** A file holding what the stack has printed so far (its terminal, as a reader of `npm start` sees it). */
  stackLog: string;
  /** The same for the example caller's session. */
  callerLog: string;
  /** Where stack.ts keeps what it learns once per stack: the registry's baseline, and whether a process exited. */
  stateDir: string;
  /** Loopback ports an upstream MCP server may be registered at by URL (UPSTREAM_EGRESS_ALLOW); upstreams.test.ts serves on them. */
  upstreamPorts: number[];
  /**
   * The loopback port of the consent page's identity provider (OAUTH_IDP_*, at `/authorize` and
   * `/token`); oauth-idp-browser.test.ts serves it. Its client id and button name: `idpClientId`, `idpName`.
   */
  idpPort: number;
  idpClientId: string;
  idpName: string;
  /**
   * This stack's BOOTSTRAP_TOKEN. The bootstrap works once per stack, so one test uses it
   * (test/e2e/cli.test.ts, `trt admin bootstrap`); any other file may only see it refused.
   */
  bootstrapToken: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The e2e stacks, as many as files run at once: each file claims one no other file holds (stack.ts). */
    stacks: E2eStack[];
  }
}

const JWT_ISSUER = "https://idp.test.invalid";
const JWT_AUDIENCE = "tool-runtime-e2e";
/** The `groups` value that makes a token an operator's in the e2e stack. */
const JWT_OPERATOR_GROUP = "tool-runtime-operators";
/** The runtime's client id at that identity provider, and the consent page's "Sign in with …". */
const IDP_CLIENT_ID = "tool-runtime-e2e-consent";
const IDP_NAME = "E2E Identity";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The file stack.ts finds when a process of the stack has exited: its name and exit code. */
export const EXITED = "exited";

/** Starts `command` in a process group of its own, logging to `logFile`; `stop` ends the group. */
function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  name: string,
  stateDir: string,
) {
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  const keep = (d: Buffer) => appendFileSync(logFile, d);
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      // Output still in the pipes may arrive after the exit: nothing more is written to the log.
      child.stdout!.off("data", keep);
      child.stderr!.off("data", keep);
      writeFileSync(join(stateDir, EXITED), `${name} exited (code ${code}, signal ${signal})`);
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      process.kill(-child.pid, "SIGTERM");
      const timer = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  return stop;
}

export default async function setup(project: TestProject) {
  // This run's response samples only (conformance.ts writes them; the posttest check reads them).
  rmSync(SAMPLES_DIR, { recursive: true, force: true });
  // A throwaway identity provider: the stacks trust its public key for this run only.
  const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: "e2e-1", alg: "ES256", use: "sig" };
  const jwtPrivateKey = { ...(await exportJWK(privateKey)), kid: "e2e-1", alg: "ES256" };
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

  // As many stacks as files may run at once (`--maxWorkers=1` on the command line: one stack).
  const count = Math.max(1, Number(project.config.maxWorkers) || 1);
  const stops: (() => Promise<void>)[] = [];
  const stacks: E2eStack[] = [];
  for (let n = 0; n < count; n++) {
    // Held until the stack starts (reservePort): it starts later, as the unit files end.
    const held = await Promise.all([reservePort(), reservePort(), reservePort(), reservePort(), reservePort()]);
    const [port, inspectorPort, callerPort, callerInspector, idpPort] = held.map((h) => h.port);
    const releasePorts = () => Promise.all(held.map((h) => h.release()));
    const stateDir = mkdtempSync(join(tmpdir(), "tool-runtime-e2e-"));
    const state = join(stateDir, "persist");
    // A dev registry of this stack's own: its caller Worker finds this stack, never another
    // stack of the run, an `npm start` or another test run on the same machine (wrangler reads
    // WRANGLER_REGISTRY_PATH).
    const registry = join(stateDir, "dev-registry");
    // The one-time operator bootstrap's secret, for this stack only.
    const bootstrapToken = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
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
    // The consent page's "Sign in with …" through an identity provider a test serves on loopback
    // (plain http: loopback in local development). The page keeps its API-key form beside the
    // button, so files that sign in with a key see the page they always saw. The browser reaches
    // the provider as `localhost`, another site than the runtime's 127.0.0.1, so the way back
    // is a cross-site navigation, as from a real provider (the SameSite=Lax cookie must travel).
    const idpVars = [
      `OAUTH_IDP_CLIENT_ID:${IDP_CLIENT_ID}`,
      `OAUTH_IDP_NAME:${IDP_NAME}`,
      `OAUTH_IDP_AUTHORIZATION_URL:http://localhost:${idpPort}/authorize`,
      `OAUTH_IDP_TOKEN_URL:http://127.0.0.1:${idpPort}/token`,
    ];
    const stackLog = join(stateDir, "stack.log");
    const callerLog = join(stateDir, "caller.log");
    writeFileSync(stackLog, "");
    writeFileSync(callerLog, "");
    // Started when the gate opens (test/boot-gate.ts: as the unit files end, or when a file asks).
    const boot = async () => {
      await releasePorts();
      if (stopping) return;
      stopStack = start(
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
          ...[
            ...jwtVars,
            ...idpVars,
            limitsVar,
            upstreamVar,
            approvalsVar,
            `BOOTSTRAP_TOKEN:${bootstrapToken}`,
          ].flatMap((v) => ["--var", v]),
        ],
        { ...process.env, CI: "true", WRANGLER_REGISTRY_PATH: registry, ...egressEnv },
        stackLog,
        "the stack (npm run stack)",
        stateDir,
      );
      // The example caller Worker (as `npm start` runs it) in its own session: it reaches the
      // runtime over a service binding through wrangler's local dev registry, whenever the
      // runtime has registered there.
      stopCaller = start(
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
          // A state folder of its own: two callers starting at once in the default one (the
          // repository's .wrangler/state) fail on its SQLite lock (SQLITE_BUSY, seen on a clean clone).
          "--persist-to",
          join(stateDir, "caller-state"),
        ],
        {
          ...process.env,
          CI: "true",
          WRANGLER_SEND_METRICS: "false",
          CLOUDFLARE_CF_FETCH_ENABLED: "false",
          WRANGLER_REGISTRY_PATH: registry,
        },
        callerLog,
        "the example caller (wrangler dev)",
        stateDir,
      );
    };
    let stopStack = async () => {};
    let stopCaller = async () => {};
    let stopping = false;
    const { wanted, cancel } = whenWanted(stateDir);
    void wanted.then(() => (stopping ? undefined : boot()));
    stops.push(async () => {
      stopping = true;
      cancel();
      await releasePorts();
      await Promise.all([stopCaller(), stopStack()]);
      rmSync(stateDir, { recursive: true, force: true });
    });
    stacks.push({
      baseUrl: `http://127.0.0.1:${port}`,
      callerUrl: `http://127.0.0.1:${callerPort}`,
      jwtPrivateKey,
      jwtIssuer: JWT_ISSUER,
      jwtAudience: JWT_AUDIENCE,
      jwtOperatorGroup: JWT_OPERATOR_GROUP,
      egressPort,
      stackLog,
      callerLog,
      stateDir,
      upstreamPorts,
      idpPort,
      idpClientId: IDP_CLIENT_ID,
      idpName: IDP_NAME,
      bootstrapToken,
    });
  }
  project.provide("stacks", stacks);
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}
