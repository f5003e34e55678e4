/**
 * The audit schema is migrations/ (wrangler d1 migrations): the code names the newest one it
 * needs, and the local stacks find the state folder their migrations go into.
 */
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { migrationsApplyArgs, persistToOf } from "../../../scripts/audit-migrations.ts";
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
});
