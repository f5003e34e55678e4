/**
 * `npm run deploy [-- --env staging|production] [-- --dry-run]`: from an empty Cloudflare
 * account to a running deployment (docs/deploy.md). The plan (scripts/deploy/plan.ts) is
 * printed first: account, secrets, resources, D1 migrations, Workers in order. Then, with
 * `--dry-run`, everything that needs no account runs — every config read and checked, each
 * Worker bundled exactly as a deploy would build it (`wrangler deploy --dry-run --outdir`), the
 * migration files listed — and nothing is asked of Cloudflare. Without it: the account is
 * asked what exists, a missing required secret stops everything before any upload (printing
 * the command that sets it), and the steps run in order; a failing step names itself and its
 * fix, and running the same command again continues (every step can be repeated).
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_readConfig } from "wrangler";
import { accountFacts, npx, signedIn } from "./deploy/account.ts";
import { bundleCommand, buildPlan, RUNTIME, SHIPPED } from "./deploy/plan.ts";
import { renderPlan, shell } from "./deploy/render.ts";
import { migrationFiles, readWorkers, writeFirstPassConfigs } from "./deploy/workers.ts";

export { SHIPPED };

/** Where a dry run leaves each Worker's bundle. */
export const bundleDir = (env: string | undefined, name: string) => join(".build", "deploy", env ?? "default", name);

function parseArgs(argv: string[]): { dryRun: boolean; env?: string } {
  let dryRun = false;
  let env: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--dry-run") dryRun = true;
    else if (a === "--env" || a === "-e") env = argv[++i];
    else if (a.startsWith("--env=")) env = a.slice("--env=".length);
    else throw new Error(`unknown argument ${a} (npm run deploy -- [--env staging|production] [--dry-run])`);
  }
  if (env === "") throw new Error("--env needs a name");
  return { dryRun, env };
}

function fail(what: string, fix: string, detail = ""): never {
  console.error(`\n✗ ${what}${detail ? `\n${detail.trim()}` : ""}\n  Fix: ${fix}`);
  process.exit(1);
}

function main(): void {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const { dryRun, env } = parseArgs(process.argv.slice(2));
  const workers = readWorkers(root, env);
  const runtime = workers.find((w) => w.config === RUNTIME)!;
  const migrations = migrationFiles(root, runtime.d1[0]?.migrationsDir);
  const firstPass = writeFirstPassConfigs(root, workers);

  if (dryRun) {
    const plan = buildPlan(workers, migrations, env);
    console.log(renderPlan(plan, true));
    if (plan.problems.length > 0) fail("the configuration has problems (above)", "correct the configs named above");
    console.log("\nLocal steps (no account):");
    for (const path of firstPass) {
      const c = unstable_readConfig({ config: path, env });
      console.log(`   ✓ ${path.slice(root.length + 1)} read by wrangler: ${c.name}, no tail consumer`);
    }
    console.log(
      `   ✓ migrations: ${migrations === null ? "no migrations folder" : migrations.length === 0 ? "no migration files" : migrations.join(", ")}`,
    );
    for (const w of workers) {
      const argv = bundleCommand(w.config, bundleDir(env, w.name), env);
      const r = npx(root, argv);
      const size = /Total Upload: ([\d.]+ KiB) \/ gzip: ([\d.]+ KiB)/.exec(r.out);
      if (r.status !== 0 || !/--dry-run: exiting now\./.test(r.out))
        fail(
          `bundling ${w.name} failed: $ ${shell(argv)}`,
          "read wrangler's error above and correct the Worker or its config",
          r.out,
        );
      console.log(
        `   ✓ bundled ${w.name}: ${size ? `${size[1]} (gzip ${size[2]})` : "built"} in ${bundleDir(env, w.name)}  ($ ${shell(argv)})`,
      );
    }
    console.log("\nDry run complete: nothing was asked of Cloudflare or uploaded.");
    return;
  }

  const who = signedIn(root);
  if (!who.ok)
    fail(
      "no Cloudflare account: `npx wrangler whoami` names none (its output is below); nothing was asked or uploaded",
      "run `npx wrangler login`, or export CLOUDFLARE_API_TOKEN (docs/deploy.md lists its permissions), then run the deploy again",
      who.out,
    );
  let facts;
  try {
    facts = accountFacts(root, workers, env);
  } catch (err) {
    fail(
      "asking the account what exists failed",
      "check the token's permissions (docs/deploy.md), then run the deploy again",
      String(err instanceof Error ? err.message : err),
    );
  }
  const plan = buildPlan(workers, migrations, env, facts);
  console.log(renderPlan(plan, false));
  if (plan.problems.length > 0) fail("the configuration has problems (above)", "correct the configs named above");
  if (plan.missingSecrets.length > 0)
    fail(
      "required secrets are missing: nothing was uploaded",
      `set them with the commands above, then run the deploy again`,
    );
  for (const step of plan.steps) {
    if (!step.command || step.phase === "account" || step.phase === "secrets") continue;
    console.log(`\n→ ${step.what}\n  $ ${shell(step.command)}`);
    const r = npx(root, step.command, true);
    if (r.status !== 0) fail(`${step.what}: failed`, step.fix);
  }
  console.log(
    `\nDeployed${env ? ` (environment "${env}")` : ""}. Next: the first operator key (docs/deploy.md, step "The first operator").`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err), "correct the configuration or the arguments named above");
  }
}
