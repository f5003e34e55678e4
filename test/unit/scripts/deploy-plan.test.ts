/**
 * The deploy plan (scripts/deploy/plan.ts) against what the account holds, and the shipped
 * configs' environments: what `npm run deploy` would run once the account has been asked,
 * without one. The configs are read with wrangler's own reader.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { buildPlan, queuesOf, RUNTIME, SHIPPED, type AccountFacts } from "../../../scripts/deploy/plan.ts";
import { readWorkers } from "../../../scripts/deploy/workers.ts";

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
