/**
 * Reads the shipped Workers' configs for one environment, with wrangler's own reader (so the
 * plan sees what `wrangler deploy` would), and writes the providers' first-pass configs.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { unstable_readConfig } from "wrangler";
import { readJsonc } from "../jsonc.ts";
import { writeGenerated } from "../dev-config.ts";
import { firstPassOf, OPTIONAL_SECRETS, SHIPPED, type WorkerConfig } from "./plan.ts";

type Raw = Record<string, unknown> & { env?: Record<string, Record<string, unknown>> };

/** The fields of wrangler's resolved config the plan reads. */
interface Resolved {
  name?: string;
  services?: { binding: string; service?: string }[];
  tail_consumers?: { service: string }[];
  secrets?: { required?: string[] };
  kv_namespaces: { binding: string; id?: unknown }[];
  d1_databases: { binding: string; database_name?: string; database_id?: string; migrations_dir?: string }[];
  r2_buckets: { binding: string; bucket_name?: string }[];
  queues: { producers?: { queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  vars?: Record<string, unknown>;
}

/** Each shipped config as wrangler reads it for `env`; an environment a config lacks is an error. */
export function readWorkers(root: string, env?: string): WorkerConfig[] {
  return SHIPPED.map((config) => {
    const raw = readJsonc<Raw>(join(root, config));
    if (env !== undefined && !raw.env?.[env])
      throw new Error(
        `${config} has no environment "${env}" (its environments: ${Object.keys(raw.env ?? {}).join(", ") || "none"})`,
      );
    const c: Resolved = unstable_readConfig({ config: join(root, config), env });
    const vars = c.vars ?? {};
    return {
      config,
      name: c.name ?? "",
      services: (c.services ?? []).map((s) => ({ binding: s.binding, service: s.service ?? "" })),
      tailConsumers: (c.tail_consumers ?? []).map((t) => t.service),
      requiredSecrets: c.secrets?.required ?? [],
      optionalSecrets: Object.values(vars).filter((v): v is string => typeof v === "string" && v in OPTIONAL_SECRETS),
      kv: c.kv_namespaces.map((k) => ({ binding: k.binding, id: typeof k.id === "string" ? k.id : undefined })),
      d1: c.d1_databases.map((d) => ({
        binding: d.binding,
        name: d.database_name ?? "",
        id: d.database_id,
        migrationsDir: d.migrations_dir,
      })),
      r2: (c.r2_buckets ?? []).map((b) => ({ binding: b.binding, name: b.bucket_name ?? "" })),
      queues: {
        producers: (c.queues.producers ?? []).map((p) => p.queue),
        consumers: (c.queues.consumers ?? []).map((q) => ({ queue: q.queue, deadLetterQueue: q.dead_letter_queue })),
      },
      vars,
    };
  });
}

/** The migration files wrangler would apply, in its order (by name); null when the folder does not exist. */
export function migrationFiles(root: string, dir = "migrations"): string[] | null {
  const path = join(root, dir);
  return existsSync(path)
    ? readdirSync(path)
        .filter((f) => f.endsWith(".sql"))
        .sort()
    : null;
}

/**
 * Writes each provider's first-pass config: its own config with `tail_consumers` removed at the
 * top and in every environment, beside it (so `main` resolves the same). Returns their paths.
 */
export function writeFirstPassConfigs(root: string, workers: WorkerConfig[]): string[] {
  return workers
    .filter((w) => w.tailConsumers.length > 0)
    .map((w) => {
      const { tail_consumers: _top, env, ...rest } = readJsonc<Raw>(join(root, w.config));
      const envs = Object.fromEntries(
        Object.entries(env ?? {}).map(([name, block]) => {
          const { tail_consumers: _env, ...others } = block;
          return [name, others];
        }),
      );
      return writeGenerated(
        join(root, firstPassOf(w.config)),
        `scripts/deploy/workers.ts from ${w.config} (the first deploy, before its tail consumer exists)`,
        { ...rest, env: envs },
      );
    });
}
