/**
 * Deployable as built: `npm run deploy -- --dry-run` prints the whole plan and runs every step
 * that needs no account — each shipped Worker bundled exactly as `wrangler deploy` would build
 * it (`--dry-run --outdir` stops before contacting Cloudflare), the first-pass configs read by
 * wrangler, the migration files listed. Where the machine allows it the run has no network at
 * all (`unshare -rn`: a new user and network namespace with only a loopback that is down), so a
 * dry run that needed one would fail here. Run once per environment, default and staging; the
 * bundles dominate the time, so each is built once, by the deploy script itself. Needs what
 * `npm test`'s pretest builds first (the validators, the protobuf code, the console's assets),
 * hence `--ignore-scripts`: the same script without its predeploy rebuild.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { bundleDir } from "../../../scripts/deploy.ts";
import { readWorkers } from "../../../scripts/deploy/workers.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

/** `unshare -rn` where user namespaces are allowed; otherwise the run keeps the network (and says so). */
const offline = spawnSync("unshare", ["-rn", "true"]).status === 0;

async function deploy(
  flags: string[],
  extraEnv: Record<string, string | undefined> = {},
): Promise<{ code: number; output: string }> {
  const args = ["run", "--ignore-scripts", "deploy", "--", ...flags];
  const run = promisify(execFile)(offline ? "unshare" : "npm", offline ? ["-rn", "npm", ...args] : args, {
    cwd: root,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      CI: "true",
      NO_COLOR: "1",
      ...extraEnv,
    },
    timeout: 240_000,
  });
  return run.then(
    ({ stdout, stderr }) => ({ code: 0, output: `${stdout}${stderr}` }),
    (err: { code?: number; stdout?: string; stderr?: string }) => ({
      code: err.code ?? 1,
      output: `${err.stdout ?? ""}${err.stderr ?? ""}`,
    }),
  );
}

/** What a plan must never show: an id or name left for the operator to fill in. */
const PLACEHOLDER = /placeholder|<[a-z_ -]+>|\byour[-_ ]|\bxxx|todo|changeme|-local\b|…/i;

describe.each([[undefined], ["staging"]])("npm run deploy -- --dry-run (env %s)", (env) => {
  const workers = readWorkers(root, env);
  const runtime = workers.at(-1)!;
  const providers = workers.filter((w) => w.tailConsumers.length > 0);
  const verifier = workers.find((w) => w.config.startsWith("verifiers/"))!;
  const envFlag = env ? ` --env ${env}` : "";
  let result: { code: number; output: string };

  beforeAll(async () => {
    result = await deploy(["--dry-run", ...(env ? ["--env", env] : [])]);
  }, 240_000);

  it("exits 0, asks nothing of Cloudflare, and shows no placeholder", () => {
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Dry run complete: nothing was asked of Cloudflare or uploaded\./);
    const plan = result.output.slice(result.output.indexOf("Deploy plan"));
    expect(plan, plan).not.toMatch(PLACEHOLDER);
    if (offline) console.log(`deploy dry run (env ${env ?? "default"}): without a network`);
  });

  it("shows the account step, the secrets with the commands that set them, the resources and the migrations", () => {
    const out = result.output;
    expect(out).toContain(env ? `Deploy plan for environment "${env}"` : "Deploy plan for the default environment");
    expect(out).toMatch(/1\. Account\n.*CLOUDFLARE_API_TOKEN.*\n +\$ npx wrangler whoami\n/);
    expect(out).toContain(`$ npx wrangler secret put BOOTSTRAP_TOKEN -c wrangler.jsonc${envFlag}`);
    expect(out).toContain(`$ npx wrangler secret put UPSTREAM_TOKEN_KEY -c wrangler.jsonc${envFlag}`);
    const suffix = env ? `-${env}` : "";
    for (const q of [`tool-runtime-audit${suffix}`, `tool-runtime-audit-dlq${suffix}`])
      expect(out).toContain(`$ npx wrangler queues create ${q}\n`);
    expect(out).toContain(`$ npx wrangler d1 create tool-runtime-audit${suffix} --update-config=false`);
    expect(out).toContain(`titled ${runtime.name}-api-keys`);
    expect(out).toContain(`$ npx wrangler d1 migrations apply AUDIT_DB --remote -c wrangler.jsonc${envFlag}`);
    expect(out).toMatch(/✓ migrations: /);
  });

  it("deploys in an order an empty account accepts: providers without their tail, the verifier, the runtime, the providers with it", () => {
    const deploys = [...result.output.matchAll(/\$ npx wrangler deploy -c (\S+)/g)].map((m) => m[1]);
    expect(deploys).toEqual([
      ...providers.map((p) => p.config.replace("wrangler.jsonc", ".wrangler-first-pass.jsonc")),
      verifier.config,
      runtime.config,
      ...providers.map((p) => p.config),
    ]);
    for (const p of providers) expect(result.output).toContain(`read by wrangler: ${p.name}, no tail consumer`);
  });

  it("bundles every shipped Worker, once", () => {
    for (const w of workers) {
      const line = new RegExp(`✓ bundled ${w.name}: ([\\d.]+ KiB) \\(gzip ([\\d.]+ KiB)\\)`).exec(result.output);
      expect(line, result.output).not.toBeNull();
      expect(existsSync(join(root, bundleDir(env, w.name)))).toBe(true);
      console.log(`${w.name}: ${line![1]} (gzip ${line![2]})`);
    }
  });
});

describe("npm run deploy without an account", () => {
  it("stops at the account step, naming the fix, before anything is asked or uploaded", async () => {
    // A wrangler config folder of its own, so that no sign-in of this machine's user is found.
    const home = mkdtempSync(join(tmpdir(), "deploy-no-account-"));
    try {
      const { code, output } = await deploy(["--env", "staging"], {
        XDG_CONFIG_HOME: home,
        CLOUDFLARE_API_TOKEN: undefined,
        CLOUDFLARE_ACCOUNT_ID: undefined,
      });
      expect(code, output).toBe(1);
      expect(output).toMatch(
        /✗ no Cloudflare account[\s\S]*Fix: run `npx wrangler login`, or export CLOUDFLARE_API_TOKEN/,
      );
      expect(output).not.toMatch(/^→ /m);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);
});
