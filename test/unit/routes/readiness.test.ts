/**
 * Quiet health: /readyz's check is made at most once per READY_CACHE_MS per isolate,
 * however many probes arrive, and what it found stays out of the public answer.
 */
import { describe, expect, it } from "vitest";
import { AUDIT_SCHEMA_MIGRATION, NOT_MIGRATED } from "../../../src/audit/schema.ts";
import { health, readiness, READY_CACHE_MS } from "../../../src/routes/health.ts";

/**
 * An env whose registry, one provider and audit database count how often they are asked. The
 * database answers wrangler's record of applied migrations: with `applied` (the names in
 * d1_migrations), or "no such table" when it is null (never migrated).
 */
function countingEnv(applied: string[] | null = [AUDIT_SCHEMA_MIGRATION]) {
  const asked = { snapshot: 0, manifest: 0, audit: 0 };
  const first = async (name: string) => {
    asked.audit++;
    if (!applied) throw new Error("D1_ERROR: no such table: d1_migrations: SQLITE_ERROR");
    return applied.includes(name) ? { applied: 1 } : null;
  };
  const env = {
    PROVIDERS: [{ name: "std", binding: "PROVIDER_STD", trust: "system" }],
    PROVIDER_STD: { invoke: () => {}, manifest: async () => (asked.manifest++, { provider: "std", tools: [] }) },
    REGISTRY: {
      idFromName: () => "id",
      get: () => ({
        snapshot: async () => (asked.snapshot++, { version: 7, tools: { "math.evaluate": {} }, problems: [] }),
      }),
    },
    AUDIT_DB: { prepare: () => ({ bind: (name: string) => ({ first: () => first(name) }) }) },
  } as unknown as Env;
  return { env, asked };
}

describe("readiness", () => {
  it("checks once for any number of probes within the interval, then again after it", async () => {
    const { env, asked } = countingEnv();
    const start = 1_000_000_000;
    const reports = await Promise.all(Array.from({ length: 50 }, (_, i) => readiness(env, start + (i % 10))));
    expect(asked).toEqual({ snapshot: 1, manifest: 1, audit: 1 });
    expect(reports[0]).toMatchObject({
      status: "ready",
      registry_version: 7,
      tools: 1,
      providers: [{ name: "std", reachable: true }],
      audit_db: { ready: true },
      problems: [],
    });
    await readiness(env, start + READY_CACHE_MS);
    expect(asked).toEqual({ snapshot: 2, manifest: 2, audit: 2 });
  });

  it("is not ready while the audit database lacks its migrated schema, and says how to migrate it", async () => {
    const at = 2_000_000_000;
    // Never migrated (no d1_migrations), an empty record, and one without the migration this code needs.
    for (const [i, applied] of [null, [], ["0000_older.sql"]].entries()) {
      const report = await readiness(countingEnv(applied).env, at + i * READY_CACHE_MS);
      expect(report).toMatchObject({
        status: "not_ready",
        providers: [{ name: "std", reachable: true }],
        audit_db: { ready: false, reason: NOT_MIGRATED },
      });
    }
    expect(NOT_MIGRATED).toBe(
      "audit schema not migrated: run `npx wrangler d1 migrations apply AUDIT_DB --local|--remote`",
    );
  });

  it("answers the public probe with the status only", async () => {
    const { env } = countingEnv();
    const res = await health.request("/readyz", {}, env);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready" });
  });
});
