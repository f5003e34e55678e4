/**
 * What `npm run deploy` does, as data: the account step, the secrets, the resources, the D1
 * migrations and the Workers in order, each with the exact wrangler command the runner runs.
 * Pure: it takes the configs as wrangler reads them (scripts/deploy/workers.ts) and, when the
 * account has been asked, what exists there; the runner (scripts/deploy.ts) prints it and runs
 * it, and docs/deploy.md is checked against it (test/unit/docs/deploy-docs.test.ts).
 *
 * Order on an account where nothing exists yet. A service binding needs its target to exist,
 * and so does a tail consumer: the runtime binds the providers and the verifier, and the
 * providers name the runtime as their tail consumer. So the providers first go out without
 * their tail consumer (a generated config beside theirs, written by scripts/deploy/workers.ts), then
 * the verifier, then the runtime, then the providers again as configured. Once the runtime
 * exists the first pass is skipped: providers (with their tail), verifier, runtime.
 *
 * The audit store's D1 databases are one per shard (AUDIT_DB, AUDIT_DB_1, …): each is created
 * and migrated by its own step, like any D1 binding of the runtime.
 *
 * Every step can be run again: a queue, database or bucket is created only when missing, applied
 * migrations are skipped, and a deploy of the same config is a new version of the same Worker.
 * So after any failure the fix is to mend what the step names and run the same command again.
 */
import { shardProblems } from "../audit-shards.ts";

/** What `npm run deploy` ships, in deploy order (a Worker before the ones that bind it). */
export const SHIPPED = [
  "providers/std/wrangler.jsonc",
  "providers/community/wrangler.jsonc",
  "verifiers/intent/wrangler.jsonc",
  "wrangler.jsonc",
] as const;
/** The runtime's config: the one Worker with resources, migrations and secrets. */
export const RUNTIME = "wrangler.jsonc";
/** The generated first-pass config's file name, beside each provider's config (git-ignored). */
export const FIRST_PASS = ".wrangler-first-pass.jsonc";

/**
 * Secrets a Worker can run without, and what goes missing without them: warned about, never a
 * stop. The required ones are each config's own `secrets.required`, which wrangler checks too.
 */
export const OPTIONAL_SECRETS: Record<string, string> = {
  UPSTREAM_TOKEN_KEY:
    "tenants cannot store their own tokens for upstream MCP servers (32 random bytes, base64: `openssl rand -base64 32`)",
};

/** One shipped Worker's config, as wrangler reads it for the chosen environment. */
export interface WorkerConfig {
  /** The config file, relative to the repository root. */
  config: string;
  name: string;
  services: { binding: string; service: string }[];
  tailConsumers: string[];
  requiredSecrets: string[];
  /** Names of secrets this Worker reads when set (from OPTIONAL_SECRETS, through its vars). */
  optionalSecrets: string[];
  kv: { binding: string; id?: string }[];
  d1: { binding: string; name: string; id?: string; migrationsDir?: string }[];
  r2: { binding: string; name: string }[];
  queues: { producers: string[]; consumers: { queue: string; deadLetterQueue?: string }[] };
  vars: Record<string, unknown>;
}

/** What the account holds, once asked (undefined in a dry run: nothing is asked). */
export interface AccountFacts {
  /** Per Worker name: its secrets' names, or null when the Worker does not exist yet. */
  secrets: Record<string, string[] | null>;
  queues: string[];
  databases: string[];
  buckets: string[];
}

export type Phase = "account" | "secrets" | "resources" | "migrations" | "deploy";

export interface Step {
  phase: Phase;
  /** What the step does, in a line. */
  what: string;
  /** The command the runner runs (argv after `npx`), or none when the step only reports. */
  command?: string[];
  /** The read-only command that finds out whether the step is needed. */
  check?: string[];
  /** Its state when the account was asked: "exists", "create", "missing"; absent in a dry run. */
  state?: string;
  /** What to do when it fails. */
  fix: string;
}

export interface Plan {
  env?: string;
  workers: WorkerConfig[];
  steps: Step[];
  /** Required secrets not set (in a dry run: all of them), as the commands that set them. */
  missingSecrets: string[][];
  /** Optional secrets not set, with what is lost without each. */
  optionalMissing: { command: string[]; why: string }[];
  /** The migration files, or null when the migrations folder does not exist. */
  migrations: string[] | null;
  problems: string[];
}

const envArgs = (env?: string) => (env ? ["--env", env] : []);
const wrangler = (...args: string[]) => ["wrangler", ...args];
const rerun = (env?: string) => `npm run deploy${env ? ` -- --env ${env}` : ""}`;

/** The command that sets a secret on a Worker (creating an empty Worker of that name first if none exists). */
export const secretPut = (name: string, config: string, env?: string) =>
  wrangler("secret", "put", name, "-c", config, ...envArgs(env));
export const secretList = (config: string, env?: string) =>
  wrangler("secret", "list", "--format", "json", "-c", config, ...envArgs(env));
export const queueInfo = (queue: string) => wrangler("queues", "info", queue);
export const d1List = () => wrangler("d1", "list", "--json");
export const bucketInfo = (bucket: string) => wrangler("r2", "bucket", "info", bucket);
export const deployCommand = (config: string, env?: string) => wrangler("deploy", "-c", config, ...envArgs(env));
/** The local bundle of a Worker, exactly as deploy builds it, stopping before any upload. */
export const bundleCommand = (config: string, outdir: string, env?: string) =>
  wrangler("deploy", "--dry-run", "--outdir", outdir, "-c", config, ...envArgs(env));

/** The first-pass config of a provider: its own, minus the tail consumer, beside it. */
export const firstPassOf = (config: string) => config.replace(/[^/]*$/, FIRST_PASS);

/** The runtime's queues: producers, consumers and dead letter queues, each once. */
export function queuesOf(runtime: WorkerConfig): string[] {
  const q = runtime.queues;
  return [
    ...new Set([
      ...q.producers,
      ...q.consumers.flatMap((c) => [c.queue, ...(c.deadLetterQueue ? [c.deadLetterQueue] : [])]),
    ]),
  ];
}

/** Configuration mistakes that would fail on the account, found without one. */
export function validate(workers: WorkerConfig[], env?: string): string[] {
  const problems: string[] = [];
  const runtime = workers.find((w) => w.config === RUNTIME);
  if (!runtime) return [`${RUNTIME} is not among the shipped Workers`];
  const names = workers.map((w) => w.name);
  const before = (name: string, w: WorkerConfig) => names.indexOf(name) < names.indexOf(w.name);
  for (const w of workers) {
    for (const s of w.services)
      if (!names.includes(s.service) || !before(s.service, w))
        problems.push(
          `${w.config}${env ? ` (env ${env})` : ""}: binding ${s.binding} targets ${s.service}, which is not a shipped Worker deployed before ${w.name}`,
        );
    for (const t of w.tailConsumers)
      if (t !== runtime.name)
        problems.push(
          `${w.config}${env ? ` (env ${env})` : ""}: tail consumer ${t} is not this environment's runtime (${runtime.name})`,
        );
    for (const k of w.kv)
      if (k.id !== undefined && k.id !== "")
        problems.push(
          `${w.config}: KV binding ${k.binding} names an id; leave it out so wrangler provisions and keeps the namespace`,
        );
    for (const d of w.d1)
      if (d.id !== undefined && d.id !== "")
        problems.push(
          `${w.config}: D1 binding ${d.binding} names an id; leave it out so the database is found by its name`,
        );
  }
  // The audit store's shards (AUDIT_DB, AUDIT_DB_1, …, scripts/audit-shards.ts): the runtime
  // counts them from the bindings, so a gap or a database named otherwise is a mistake here.
  for (const p of shardProblems(runtime.d1))
    problems.push(
      `${RUNTIME}${env ? ` (env ${env})` : ""}: ${p} (\`npm run audit-shards\` writes them by the convention)`,
    );
  const dlqs = runtime.queues.consumers.flatMap((c) => (c.deadLetterQueue ? [c.deadLetterQueue] : []));
  if (dlqs.length > 0 && runtime.vars.AUDIT_DEAD_LETTER_QUEUE !== dlqs[0])
    problems.push(
      `${RUNTIME}: AUDIT_DEAD_LETTER_QUEUE is ${String(runtime.vars.AUDIT_DEAD_LETTER_QUEUE)}, but the dead letter queue is ${dlqs[0]}`,
    );
  for (const p of runtime.queues.producers)
    if (!runtime.queues.consumers.some((c) => c.queue === p))
      problems.push(`${RUNTIME}: queue ${p} has a producer and no consumer`);
  return problems;
}

/**
 * The whole plan for one environment. `facts` is what the account holds; without it (a dry
 * run) every resource is "create if missing" and the first deploy's order is shown.
 */
export function buildPlan(
  workers: WorkerConfig[],
  migrations: string[] | null,
  env?: string,
  facts?: AccountFacts,
): Plan {
  const runtime = workers.find((w) => w.config === RUNTIME)!;
  const steps: Step[] = [];
  const again = `then run \`${rerun(env)}\` again: steps already done are skipped or repeated harmlessly`;

  steps.push({
    phase: "account",
    what: "a Cloudflare account: `npx wrangler login` once, or CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID) in the environment",
    command: wrangler("whoami"),
    fix: `run \`npx wrangler login\`, or export CLOUDFLARE_API_TOKEN with the permissions docs/deploy.md lists; ${again}`,
  });

  const missingSecrets: string[][] = [];
  const optionalMissing: { command: string[]; why: string }[] = [];
  for (const w of workers) {
    if (w.requiredSecrets.length === 0 && w.optionalSecrets.length === 0) continue;
    const set = facts?.secrets[w.name];
    const state =
      facts === undefined
        ? undefined
        : set === null || set === undefined
          ? "Worker not deployed yet: no secrets"
          : `set: ${set.join(", ") || "none"}`;
    steps.push({
      phase: "secrets",
      what: `${w.name} needs ${w.requiredSecrets.join(", ") || "no secret"}${w.optionalSecrets.length > 0 ? `; optional: ${w.optionalSecrets.join(", ")}` : ""}`,
      command: secretList(w.config, env),
      state,
      fix: `set each missing secret with the command printed for it; ${again}`,
    });
    // Without the account (a dry run) every secret is listed with the command that sets it.
    for (const name of w.requiredSecrets) if (!set?.includes(name)) missingSecrets.push(secretPut(name, w.config, env));
    for (const name of w.optionalSecrets)
      if (!set?.includes(name))
        optionalMissing.push({ command: secretPut(name, w.config, env), why: OPTIONAL_SECRETS[name] ?? "" });
  }

  for (const queue of queuesOf(runtime)) {
    const state = facts === undefined ? undefined : facts.queues.includes(queue) ? "exists" : "create";
    steps.push({
      phase: "resources",
      what: `queue ${queue}: created when missing (wrangler provisions no consumer-only queue)`,
      command: state === "exists" ? undefined : wrangler("queues", "create", queue),
      check: queueInfo(queue),
      state,
      fix: `check the account's Queues (Workers Paid) and the token's Queues permission; ${again}`,
    });
  }
  for (const d of runtime.d1) {
    const state = facts === undefined ? undefined : facts.databases.includes(d.name) ? "exists" : "create";
    steps.push({
      phase: "resources",
      what: `D1 database ${d.name} (${d.binding}): created when missing, then found by name`,
      command: state === "exists" ? undefined : wrangler("d1", "create", d.name, "--update-config=false"),
      check: d1List(),
      state,
      fix: `check the token's D1 permission; ${again}`,
    });
  }
  for (const b of runtime.r2) {
    const state = facts === undefined ? undefined : facts.buckets.includes(b.name) ? "exists" : "create";
    steps.push({
      phase: "resources",
      what: `R2 bucket ${b.name} (${b.binding}): created when missing, then found by name`,
      command: state === "exists" ? undefined : wrangler("r2", "bucket", "create", b.name),
      check: bucketInfo(b.name),
      state,
      fix: `check that R2 is enabled on the account and the token's R2 permission; ${again}`,
    });
  }
  for (const k of runtime.kv) {
    steps.push({
      phase: "resources",
      what: `KV namespace for ${k.binding}: provisioned by \`wrangler deploy\` of ${runtime.name} on its first deploy (titled ${runtime.name}-${k.binding.toLowerCase().replaceAll("_", "-")}) and kept linked afterwards`,
      fix: `if the deploy says a namespace with that title already exists (left by a first deploy that failed after creating it): it is empty, so delete it (\`npx wrangler kv namespace delete --namespace-id …\` with the id \`npx wrangler kv namespace list\` shows); ${again}`,
    });
  }

  for (const d of runtime.d1) {
    const dir = `${d.migrationsDir ?? "migrations"}/`;
    steps.push({
      phase: "migrations",
      // wrangler refuses to apply from a folder that does not exist: then there is nothing to apply.
      what:
        migrations === null
          ? `D1 migrations for ${d.binding}: ${dir} does not exist, nothing to apply`
          : `D1 migrations for ${d.binding} from ${dir} (${migrations.length === 0 ? "no migration files" : migrations.join(", ")}): applied ones are skipped`,
      command:
        migrations === null
          ? undefined
          : wrangler("d1", "migrations", "apply", d.binding, "--remote", "-c", runtime.config, ...envArgs(env)),
      fix: `read the failing migration's error (nothing after it was applied, and the Workers are not yet changed); fix it with a new migration file; ${again}`,
    });
  }

  const runtimeExists =
    facts !== undefined && facts.secrets[runtime.name] !== null && facts.secrets[runtime.name] !== undefined;
  const providers = workers.filter((w) => w.tailConsumers.length > 0);
  const deployFix = (w: WorkerConfig) =>
    `read wrangler's error above; Workers deployed before this step keep their new version and the rest keep their old one (\`npx wrangler rollback -c ${w.config}${env ? ` --env ${env}` : ""}\` undoes one); ${again}`;
  if (!runtimeExists) {
    for (const w of providers) {
      steps.push({
        phase: "deploy",
        what: `${w.name} without its tail consumer (first deploy only: ${runtime.name} does not exist yet)`,
        command: deployCommand(firstPassOf(w.config), env),
        fix: deployFix(w),
      });
    }
  }
  for (const w of workers.filter((x) => !providers.includes(x))) {
    steps.push({
      phase: "deploy",
      what: `${w.name} (${w.config})`,
      command: deployCommand(w.config, env),
      fix: deployFix(w),
    });
  }
  // After the runtime, so their tail consumer exists; when it already existed, before it, as
  // SHIPPED orders them (a runtime that binds a provider finds the provider's new version).
  const configured = providers.map((w): Step => ({
    phase: "deploy",
    what: `${w.name} (${w.config}), tail to ${w.tailConsumers.join(", ")}`,
    command: deployCommand(w.config, env),
    fix: deployFix(w),
  }));
  const firstDeploy = steps.findIndex((s) => s.phase === "deploy");
  if (runtimeExists) steps.splice(firstDeploy, 0, ...configured);
  else steps.push(...configured);

  return { env, workers, steps, missingSecrets, optionalMissing, migrations, problems: validate(workers, env) };
}
