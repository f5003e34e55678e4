/**
 * The audit schema is migrations/ (wrangler d1 migrations): the code names the newest one it
 * needs, and the local stacks find the state folder their migrations go into and apply them to
 * every audit shard of their config, one command per shard.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { auditBindingsOf, migrationsApplyArgs, persistToOf } from "../../../scripts/audit-migrations.ts";
import { rewriteShards } from "../../../scripts/audit-shards.ts";
import { DEV_CONFIG, writeDevConfig } from "../../../scripts/dev-config.ts";
import { migrationsCommands, RUNTIME_CONFIG } from "../../../scripts/prod-stack.ts";
import { AUDIT_SCHEMA_MIGRATION } from "../../../src/audit/schema.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

describe("the audit migrations", () => {
  it("are numbered files, and the code's readiness check waits for the newest", () => {
    const files = readdirSync(join(root, "migrations"))
      .filter((f) => f.endsWith(".sql"))
      .sort();
    expect(files.length).toBeGreaterThan(0);
    for (const [i, f] of files.entries())
      expect(f).toMatch(new RegExp(`^${String(i + 1).padStart(4, "0")}_[\\w.-]+\\.sql$`));
    expect(AUDIT_SCHEMA_MIGRATION).toBe(files.at(-1));
  });

  it("go into the state folder the stack's wrangler dev uses", () => {
    expect(persistToOf(["-c", "a.toml", "--persist-to", "/tmp/s", "--port", "1"])).toBe("/tmp/s");
    expect(persistToOf(["--persist-to=/tmp/t"])).toBe("/tmp/t");
    expect(persistToOf(["-c", "a.toml", "--ip", "127.0.0.1"])).toBeUndefined();
    expect(migrationsApplyArgs("x.toml", "--local", "/tmp/s")).toEqual([
      "d1",
      "migrations",
      "apply",
      "AUDIT_DB",
      "--local",
      "-c",
      "x.toml",
      "--persist-to",
      "/tmp/s",
    ]);
    expect(migrationsApplyArgs("wrangler.toml", "--remote")).toEqual([
      "d1",
      "migrations",
      "apply",
      "AUDIT_DB",
      "--remote",
      "-c",
      "wrangler.toml",
    ]);
  });

  it("go into every audit shard of the config: the dev config's two, a sharded config's N, in order", () => {
    writeDevConfig(root);
    expect(auditBindingsOf(join(root, DEV_CONFIG))).toEqual(["AUDIT_DB", "AUDIT_DB_1"]);
    expect(auditBindingsOf(join(root, "wrangler.jsonc"))).toEqual(["AUDIT_DB"]);
    const dir = mkdtempSync(join(tmpdir(), "audit-migrations-"));
    try {
      const config = join(dir, "wrangler.jsonc");
      writeFileSync(config, rewriteShards(readFileSync(join(root, "wrangler.jsonc"), "utf8"), 3).text);
      expect(auditBindingsOf(config)).toEqual(["AUDIT_DB", "AUDIT_DB_1", "AUDIT_DB_2"]);
      expect(migrationsApplyArgs(config, "--local", "/tmp/s", "AUDIT_DB_2").slice(0, 5)).toEqual([
        "d1",
        "migrations",
        "apply",
        "AUDIT_DB_2",
        "--local",
      ]);
      writeFileSync(config, `{ "d1_databases": [{ "binding": "OTHER", "database_name": "o" }] }`);
      expect(() => auditBindingsOf(config)).toThrow(/no AUDIT_DB binding/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("go into every audit shard of what ships, in production mode (npm run start:prod, test/prod/)", () => {
    expect(migrationsCommands(root, "/tmp/p").map((c) => [c.command, ...c.args].join(" "))).toEqual([
      `npx wrangler d1 migrations apply AUDIT_DB --local --persist-to /tmp/p -c ${RUNTIME_CONFIG}`,
    ]);
    expect(migrationsCommands(join(root, "no-such-folder"), "/tmp/p")).toEqual([]);
  });
});
