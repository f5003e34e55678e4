/**
 * The deploy plan (scripts/deploy/plan.ts) against what the account holds, and the shipped
 * configs' environments: what `npm run deploy` would run once the account has been asked,
 * without one. The configs are read with wrangler's own reader.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { rewriteShards } from "../../../scripts/audit-shards.ts";
import { buildPlan, queuesOf, RUNTIME, SHIPPED, type AccountFacts } from "../../../scripts/deploy/plan.ts";
import { renderPlan } from "../../../scripts/deploy/render.ts";
import { migrationFiles, readWorkers } from "../../../scripts/deploy/workers.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const ENVS = [undefined, "staging", "production"] as const;
const deploys = (plan: ReturnType<typeof buildPlan>) =>
  plan.steps.filter((s) => s.phase === "deploy").map((s) => s.command!.join(" "));

describe("the plan, once the account has been asked", () => {
  const workers = readWorkers(root, "staging");
  const runtime = workers.find((w) => w.config === RUNTIME)!;
  const everything: AccountFacts = {
    secrets: { [runtime.name]: ["BOOTSTRAP_TOKEN", "UPSTREAM_TOKEN_KEY"] },
    queues: queuesOf(runtime),
    databases: runtime.d1.map((d) => d.name),
    buckets: runtime.r2.map((b) => b.name),
  };

  it("on an upgrade deploys the providers with their tail consumer, then the verifier, then the runtime, and creates nothing", () => {
    const plan = buildPlan(workers, ["0001_audit.sql"], "staging", everything);
    expect(deploys(plan)).toEqual(SHIPPED.map((c) => `wrangler deploy -c ${c} --env staging`));
    expect(plan.steps.filter((s) => s.phase === "resources" && s.command)).toEqual([]);
    expect(plan.missingSecrets).toEqual([]);
    expect(plan.optionalMissing).toEqual([]);
    expect(plan.problems).toEqual([]);
  });

  it("on an empty account stops on the missing secret with the command that sets it, and creates what is missing", () => {
    const plan = buildPlan(workers, [], "staging", {
      secrets: { [runtime.name]: null },
      queues: [],
      databases: [],
      buckets: [],
    });
    expect(plan.missingSecrets).toEqual([
      ["wrangler", "secret", "put", "BOOTSTRAP_TOKEN", "-c", "wrangler.jsonc", "--env", "staging"],
    ]);
    expect(plan.optionalMissing.map((o) => o.command.join(" "))).toEqual([
      "wrangler secret put UPSTREAM_TOKEN_KEY -c wrangler.jsonc --env staging",
    ]);
    expect(plan.steps.filter((s) => s.phase === "resources" && s.command).map((s) => s.command!.join(" "))).toEqual([
      "wrangler queues create tool-runtime-audit-staging",
      "wrangler queues create tool-runtime-audit-dlq-staging",
      "wrangler d1 create tool-runtime-audit-staging --update-config=false",
      "wrangler r2 bucket create tool-runtime-audit-archive-staging",
    ]);
    expect(deploys(plan)[0]).toBe("wrangler deploy -c providers/std/.wrangler-first-pass.jsonc --env staging");
  });

  it("applies the migrations when their folder exists, and skips the step when it does not (wrangler refuses a missing folder)", () => {
    const apply = (m: string[] | null) =>
      buildPlan(workers, m, "staging")
        .steps.filter((s) => s.phase === "migrations")
        .map((s) => s.command?.join(" "));
    expect(apply([])).toEqual(["wrangler d1 migrations apply AUDIT_DB --remote -c wrangler.jsonc --env staging"]);
    expect(apply(null)).toEqual([undefined]);
  });

  it("names every failing step's fix and how to continue", () => {
    const plan = buildPlan(workers, [], "staging");
    for (const s of plan.steps) expect(s.fix, s.what).toMatch(/npm run deploy -- --env staging/);
  });

  it("finds a service binding to a Worker that is not shipped, and a KV id someone pasted in", () => {
    const broken = workers.map((w) =>
      w.config === RUNTIME
        ? {
            ...w,
            services: [...w.services, { binding: "X", service: "tool-provider-elsewhere" }],
            kv: [{ binding: "API_KEYS", id: "abc" }],
          }
        : w,
    );
    const problems = buildPlan(broken, [], "staging").problems;
    expect(problems.some((p) => p.includes("tool-provider-elsewhere"))).toBe(true);
    expect(problems.some((p) => p.includes("API_KEYS names an id"))).toBe(true);
  });
});

describe("the audit store's shards", () => {
  const workers = readWorkers(root, "staging");
  const withD1 = (d1: { binding: string; name: string }[]) =>
    workers.map((w) =>
      w.config === RUNTIME ? { ...w, d1: d1.map((d) => ({ ...d, migrationsDir: "migrations" })) } : w,
    );
  const shard = (k: number, name = `tool-runtime-audit-staging-${k}`) => ({ binding: `AUDIT_DB_${k}`, name });
  const zero = { binding: "AUDIT_DB", name: "tool-runtime-audit-staging" };

  it("are fine contiguous from AUDIT_DB and named after it, other D1 bindings beside them", () => {
    expect(buildPlan(withD1([zero, shard(1), shard(2)]), [], "staging").problems).toEqual([]);
    expect(buildPlan(withD1([{ binding: "OTHER", name: "x" }, zero, shard(1)]), [], "staging").problems).toEqual([]);
  });

  it("are a problem with a gap (AUDIT_DB_2 without AUDIT_DB_1), without AUDIT_DB, or named otherwise", () => {
    expect(buildPlan(withD1([zero, shard(2)]), [], "staging").problems).toEqual([
      "wrangler.jsonc (env staging): audit shard AUDIT_DB_2 without AUDIT_DB_1: the shards' bindings must be AUDIT_DB, AUDIT_DB_1, … with no gap (`npm run audit-shards` writes them by the convention)",
    ]);
    expect(buildPlan(withD1([zero, shard(1, "tool-runtime-audit-1")]), [], "staging").problems).toEqual([
      `wrangler.jsonc (env staging): audit shard AUDIT_DB_1's database is tool-runtime-audit-1, not tool-runtime-audit-staging-1 (AUDIT_DB's name + "-1") (\`npm run audit-shards\` writes them by the convention)`,
    ]);
    expect(buildPlan(withD1([shard(1)]), [], "staging").problems).toEqual([
      "wrangler.jsonc (env staging): no AUDIT_DB binding in d1_databases (`npm run audit-shards` writes them by the convention)",
    ]);
  });

  it("written by npm run audit-shards (3 in staging): the dry run creates and migrates each database, one step each", () => {
    // The shipped configs in a folder of their own, the runtime's with 3 audit shards in staging.
    const dir = mkdtempSync(join(tmpdir(), "deploy-plan-shards-"));
    try {
      for (const c of SHIPPED) {
        mkdirSync(dirname(join(dir, c)), { recursive: true });
        cpSync(join(root, c), join(dir, c));
      }
      writeFileSync(join(dir, RUNTIME), rewriteShards(readFileSync(join(root, RUNTIME), "utf8"), 3, "staging").text);
      const sharded = readWorkers(dir, "staging");
      const migrations = migrationFiles(root);
      const plan = buildPlan(sharded, migrations, "staging");
      expect(plan.problems).toEqual([]);
      const out = renderPlan(plan, true);
      const names = ["tool-runtime-audit-staging", "tool-runtime-audit-staging-1", "tool-runtime-audit-staging-2"];
      expect([...out.matchAll(/\$ npx wrangler d1 create (\S+) --update-config=false/g)].map((m) => m[1])).toEqual(
        names,
      );
      expect(
        [...out.matchAll(/\$ npx wrangler d1 migrations apply (\S+) --remote -c wrangler.jsonc --env staging\n/g)].map(
          (m) => m[1],
        ),
      ).toEqual(["AUDIT_DB", "AUDIT_DB_1", "AUDIT_DB_2"]);
      for (const [k, name] of names.entries())
        expect(out).toContain(`D1 database ${name} (${k === 0 ? "AUDIT_DB" : `AUDIT_DB_${k}`}): created when missing`);
      // The rest of the plan is the shipped one's.
      expect(deploys(plan)).toEqual(deploys(buildPlan(workers, migrations, "staging")));
      // On an account that has the first database already, only the new shards are created.
      const runtime = sharded.find((w) => w.config === RUNTIME)!;
      const upgrade = buildPlan(sharded, migrations, "staging", {
        secrets: { [runtime.name]: ["BOOTSTRAP_TOKEN", "UPSTREAM_TOKEN_KEY"] },
        queues: queuesOf(runtime),
        databases: [names[0]],
        buckets: runtime.r2.map((b) => b.name),
      });
      expect(
        upgrade.steps.filter((st) => st.phase === "resources" && st.command).map((st) => st.command!.join(" ")),
      ).toEqual([
        "wrangler d1 create tool-runtime-audit-staging-1 --update-config=false",
        "wrangler d1 create tool-runtime-audit-staging-2 --update-config=false",
      ]);
      expect(upgrade.steps.filter((st) => st.phase === "migrations")).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the shipped configs' environments", () => {
  it.each(ENVS.map((e) => [e ?? "default", e]))(
    "%s: every binding stays inside the environment, and nothing is wrong with the plan",
    (_name, env) => {
      const workers = readWorkers(root, env);
      expect(buildPlan(workers, [], env).problems).toEqual([]);
      const names = workers.map((w) => w.name);
      expect(new Set(names).size).toBe(names.length);
      if (env) for (const n of names) expect(n.endsWith(`-${env}`), n).toBe(true);
    },
  );

  it("give staging and production their own Workers, queues, database and archive bucket", () => {
    const [a, b, c] = ENVS.map((e) => readWorkers(root, e));
    const runtimeOf = (ws: typeof a) => ws.find((w) => w.config === RUNTIME)!;
    // Each kind is its own namespace on the account (the queue and the database may share a name).
    for (const kind of [
      (ws: typeof a) => ws.map((w) => w.name),
      (ws: typeof a) => queuesOf(runtimeOf(ws)),
      (ws: typeof a) => runtimeOf(ws).d1.map((d) => d.name),
      (ws: typeof a) => runtimeOf(ws).r2.map((r) => r.name),
    ]) {
      const all = [a, b, c].flatMap(kind);
      expect(new Set(all).size, all.join(", ")).toBe(all.length);
    }
  });

  it.each(ENVS.map((e) => [e ?? "default", e]))(
    "%s: the runtime's vars are the top level's except the dead letter queue's name, and BOOTSTRAP_TOKEN is required",
    (_name, env) => {
      const top = unstable_readConfig({ config: join(root, RUNTIME) });
      const here = unstable_readConfig({ config: join(root, RUNTIME), env });
      const { AUDIT_DEAD_LETTER_QUEUE: _a, ...topVars } = top.vars as Record<string, unknown>;
      const { AUDIT_DEAD_LETTER_QUEUE: _b, ...vars } = here.vars as Record<string, unknown>;
      expect(vars).toEqual(topVars);
      expect(here.secrets?.required).toContain("BOOTSTRAP_TOKEN");
      expect(here.durable_objects).toEqual(top.durable_objects);
    },
  );

  it.each(SHIPPED.flatMap((c) => ENVS.map((e): [string, string, string | undefined] => [c, e ?? "default", e])))(
    "%s (%s) has logs and sampled traces on",
    (config, _name, env) => {
      const o = unstable_readConfig({ config: join(root, config), env }).observability;
      expect(o?.enabled).toBe(true);
      expect(o?.logs?.enabled).toBe(true);
      expect(o?.traces?.enabled).toBe(true);
      expect(o?.traces?.head_sampling_rate).toBeGreaterThan(0);
      expect(o?.traces?.head_sampling_rate).toBeLessThanOrEqual(1);
    },
  );
});
