/**
 * `npm run audit-shards -- <N> [--env <name>]` (scripts/audit-shards.ts): the runtime's
 * wrangler.jsonc rewritten to hold N audit databases by the convention (AUDIT_DB, AUDIT_DB_1, …
 * named after AUDIT_DB's database + "-k"), only the d1_databases array's text changed, and the
 * result read by wrangler's own reader as the deploy and the runtime would read it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { auditShards, parseArgs, rewriteShards, shardIndex, shardProblems } from "../../../scripts/audit-shards.ts";
import { parseJsonc } from "../../../scripts/jsonc.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const shipped = readFileSync(join(root, "wrangler.jsonc"), "utf8");

type Config = { d1_databases?: { binding: string; database_name?: string }[] };
type Full = Config & { env: Record<string, Config> };
const d1Of = (text: string, env?: string) => {
  const c = parseJsonc(text) as Full;
  return (env ? c.env[env] : c).d1_databases!.map((d) => `${d.binding}=${d.database_name}`);
};

/** The lines of `after` that are not in `before`, and those of `before` not in `after`. */
function lineDiff(before: string, after: string) {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { removed: a.slice(head, a.length - tail), added: b.slice(head, b.length - tail) };
}

/** wrangler's own reading of a config text's D1 bindings, for `env`. */
function wranglerRead(
  text: string,
  env?: string,
): { binding: string; database_name?: string; migrations_dir?: string }[] {
  const dir = mkdtempSync(join(tmpdir(), "audit-shards-"));
  try {
    writeFileSync(join(dir, "wrangler.jsonc"), text);
    return unstable_readConfig({ config: join(dir, "wrangler.jsonc"), env }).d1_databases;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("npm run audit-shards", () => {
  it("N=1 leaves the shipped config as it is, at the top and in every environment", () => {
    for (const env of [undefined, "staging", "production"]) {
      const r = rewriteShards(shipped, 1, env);
      expect(r.changed).toBe(false);
      expect(r.text).toBe(shipped);
    }
    // What ships has one audit database everywhere.
    for (const env of [undefined, "staging", "production"])
      expect(auditShards(wranglerRead(shipped, env)).map((d) => d.binding)).toEqual(["AUDIT_DB"]);
  });

  it("N=2 at the top level adds AUDIT_DB_1 and changes nothing but the array", () => {
    const { text, changed } = rewriteShards(shipped, 2);
    expect(changed).toBe(true);
    expect(d1Of(text)).toEqual(["AUDIT_DB=tool-runtime-audit", "AUDIT_DB_1=tool-runtime-audit-1"]);
    // The shipped entry's line gains only the comma that separates it from the next.
    const line = `    { "binding": "AUDIT_DB", "database_name": "tool-runtime-audit", "migrations_dir": "migrations" }`;
    expect(lineDiff(shipped, text)).toEqual({
      removed: [line],
      added: [
        `${line},`,
        `    { "binding": "AUDIT_DB_1", "database_name": "tool-runtime-audit-1", "migrations_dir": "migrations" }`,
      ],
    });
    // The environments keep their own, one database each.
    expect(d1Of(text, "staging")).toEqual(["AUDIT_DB=tool-runtime-audit-staging"]);
    expect(d1Of(text, "production")).toEqual(["AUDIT_DB=tool-runtime-audit-production"]);
  });

  it("N=4 in an environment names the shards after that environment's database, read so by wrangler", () => {
    const { text } = rewriteShards(shipped, 4, "production");
    expect(d1Of(text, "production")).toEqual([
      "AUDIT_DB=tool-runtime-audit-production",
      "AUDIT_DB_1=tool-runtime-audit-production-1",
      "AUDIT_DB_2=tool-runtime-audit-production-2",
      "AUDIT_DB_3=tool-runtime-audit-production-3",
    ]);
    expect(d1Of(text)).toEqual(["AUDIT_DB=tool-runtime-audit"]);
    expect(d1Of(text, "staging")).toEqual(["AUDIT_DB=tool-runtime-audit-staging"]);
    const { removed, added } = lineDiff(shipped, text);
    expect(removed).toEqual([
      `      "d1_databases": [{ "binding": "AUDIT_DB", "database_name": "tool-runtime-audit-production", "migrations_dir": "migrations" }],`,
    ]);
    expect(added[0]).toBe(`      "d1_databases": [`);
    expect(added.at(-1)).toBe("      ],");
    expect(added).toHaveLength(6);
    const read = wranglerRead(text, "production");
    expect(read.map((d) => [d.binding, d.database_name, d.migrations_dir])).toEqual(
      [0, 1, 2, 3].map((k) => [
        k === 0 ? "AUDIT_DB" : `AUDIT_DB_${k}`,
        `tool-runtime-audit-production${k === 0 ? "" : `-${k}`}`,
        "migrations",
      ]),
    );
    expect(shardProblems(read.map((d) => ({ binding: d.binding, name: d.database_name })))).toEqual([]);
    // The comments of the file are all still there.
    const comments = (t: string) => t.split("\n").filter((l) => l.trim().startsWith("//"));
    expect(comments(text)).toEqual(comments(shipped));
  });

  it("is idempotent, and shrinks as well as grows", () => {
    const four = rewriteShards(shipped, 4, "staging").text;
    const again = rewriteShards(four, 4, "staging");
    expect(again.changed).toBe(false);
    expect(again.text).toBe(four);
    const two = rewriteShards(four, 2, "staging").text;
    expect(d1Of(two, "staging")).toEqual([
      "AUDIT_DB=tool-runtime-audit-staging",
      "AUDIT_DB_1=tool-runtime-audit-staging-1",
    ]);
    expect(rewriteShards(two, 2, "staging").text).toBe(two);
    const one = rewriteShards(two, 1, "staging").text;
    expect(d1Of(one, "staging")).toEqual(["AUDIT_DB=tool-runtime-audit-staging"]);
    expect(parseJsonc(one)).toEqual(parseJsonc(shipped));
  });

  it("keeps other D1 bindings where they were, and a misnamed or stray shard is replaced", () => {
    const config = `{
  // top
  "name": "x",
  "d1_databases": [
    { "binding": "OTHER", "database_name": "other-db" },
    { "binding": "AUDIT_DB", "database_name": "audit", "migrations_dir": "migrations" /* shard 0 */ },
    { "binding": "AUDIT_DB_3", "database_name": "wrong" },
    { "binding": "LAST", "database_name": "last-db" },
  ],
  "vars": { "URL": "https://a.example//x" } // kept
}
`;
    const { text } = rewriteShards(config, 2);
    expect(d1Of(text)).toEqual(["OTHER=other-db", "AUDIT_DB=audit", "AUDIT_DB_1=audit-1", "LAST=last-db"]);
    expect(text).toContain(`"migrations_dir": "migrations" /* shard 0 */ },`);
    expect(text.startsWith(`{\n  // top\n  "name": "x",\n  "d1_databases": [\n`)).toBe(true);
    expect(text.endsWith(`  ],\n  "vars": { "URL": "https://a.example//x" } // kept\n}\n`)).toBe(true);
  });

  it("refuses N below 1 or above 64, a config without AUDIT_DB, and an environment that does not exist", () => {
    for (const n of [0, -1, 65, 1.5, Number.NaN]) expect(() => rewriteShards(shipped, n)).toThrow(/from 1 to 64/);
    expect(rewriteShards(shipped, 64).d1).toHaveLength(64);
    expect(() => rewriteShards(`{ "d1_databases": [{ "binding": "OTHER", "database_name": "o" }] }`, 2)).toThrow(
      /no AUDIT_DB binding/,
    );
    expect(() => rewriteShards(`{ "name": "x" }`, 1)).toThrow(/no AUDIT_DB binding/);
    expect(() => rewriteShards(shipped, 2, "qa")).toThrow(
      /no environment "qa" \(its environments: staging, production\)/,
    );
    expect(() =>
      rewriteShards(`{ "d1_databases": [{ "binding": "AUDIT_DB", "database_name": "a" }, // why\n] }`, 2),
    ).toThrow(/comments between its entries/);
  });

  it("reads its arguments", () => {
    expect(parseArgs(["4"])).toEqual({ n: 4, env: undefined });
    expect(parseArgs(["2", "--env", "production"])).toEqual({ n: 2, env: "production" });
    expect(parseArgs(["--env=staging", "3"])).toEqual({ n: 3, env: "staging" });
    expect(() => parseArgs([])).toThrow(/usage/);
    expect(() => parseArgs(["two"])).toThrow(/usage/);
    expect(() => parseArgs(["2", "--env"])).toThrow(/environment's name/);
  });
});

describe("the shard convention", () => {
  it("numbers AUDIT_DB 0 and AUDIT_DB_k k, and nothing else", () => {
    expect(
      ["AUDIT_DB", "AUDIT_DB_1", "AUDIT_DB_12", "AUDIT_DB_0", "AUDIT_DB_01", "AUDIT_DBX", "OTHER"].map(shardIndex),
    ).toEqual([0, 1, 12, undefined, undefined, undefined, undefined]);
  });

  it("finds a gap, a misnamed shard and a missing AUDIT_DB", () => {
    const s = (binding: string, name: string) => ({ binding, name });
    expect(shardProblems([s("AUDIT_DB", "a"), s("AUDIT_DB_1", "a-1"), s("OTHER", "o")])).toEqual([]);
    expect(shardProblems([s("AUDIT_DB", "a"), s("AUDIT_DB_2", "a-2")])).toEqual([
      "audit shard AUDIT_DB_2 without AUDIT_DB_1: the shards' bindings must be AUDIT_DB, AUDIT_DB_1, … with no gap",
    ]);
    expect(shardProblems([s("AUDIT_DB", "a"), s("AUDIT_DB_1", "b-1")])).toEqual([
      `audit shard AUDIT_DB_1's database is b-1, not a-1 (AUDIT_DB's name + "-1")`,
    ]);
    expect(shardProblems([s("AUDIT_DB_1", "a-1")])).toEqual(["no AUDIT_DB binding in d1_databases"]);
  });
});
