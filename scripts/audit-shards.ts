/**
 * The audit store's shards in the runtime's wrangler config. The store is N D1 databases, by
 * tenant: shard 0 is the binding AUDIT_DB, shards 1..N-1 are AUDIT_DB_1 … AUDIT_DB_{N-1}, each
 * named after AUDIT_DB's database_name with `-<k>` appended (tool-runtime-audit-1,
 * tool-runtime-audit-production-2), with the same migrations. N is the number of those bindings,
 * contiguous from 0; the runtime counts them from its bindings, no var says N.
 *
 *   npm run audit-shards -- <N> [--env <name>]
 *
 * rewrites wrangler.jsonc's top-level (or the named environment's) `d1_databases` so that it
 * holds exactly AUDIT_DB and AUDIT_DB_1..N-1, and prints what it wrote. Only that array's text
 * changes: the rest of the file, comments included, is kept as written, and so are the array's
 * other D1 bindings and AUDIT_DB's own entry. `npm run deploy` then creates each database and
 * applies the migrations to each (scripts/deploy/plan.ts, which also refuses a gap or a
 * misnamed shard); the local stacks apply them to each too (scripts/audit-migrations.ts).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseJsonc } from "./jsonc.ts";

/** Shard 0's binding; shard k's is `AUDIT_DB_<k>`. */
export const AUDIT_DB = "AUDIT_DB";
/** The most shards the script writes (and the deploy accepts). */
export const MAX_SHARDS = 64;
export const SHARD_MIGRATIONS_DIR = "migrations";

/** A D1 binding as written in a wrangler config. */
export interface D1Binding {
  binding: string;
  database_name?: string;
  database_id?: string;
  migrations_dir?: string;
}

/** Shard k's binding name. */
export const shardBinding = (k: number): string => (k === 0 ? AUDIT_DB : `${AUDIT_DB}_${k}`);

/** The shard number a binding name stands for (AUDIT_DB → 0, AUDIT_DB_3 → 3), or undefined for any other binding. */
export function shardIndex(binding: string): number | undefined {
  if (binding === AUDIT_DB) return 0;
  const m = /^AUDIT_DB_([1-9]\d*)$/.exec(binding);
  return m ? Number(m[1]) : undefined;
}

/** The database name shard k must have, given AUDIT_DB's. */
export const shardDatabaseName = (base: string, k: number): string => (k === 0 ? base : `${base}-${k}`);

/** The audit shard bindings among a config's D1 bindings, by shard number. */
export function auditShards<T extends { binding: string }>(d1: readonly T[]): T[] {
  return d1
    .filter((d) => shardIndex(d.binding) !== undefined)
    .sort((a, b) => shardIndex(a.binding)! - shardIndex(b.binding)!);
}

/**
 * What is wrong with a config's audit shards, as sentences (none when it is right): no AUDIT_DB,
 * a gap in the numbers, a shard whose database is not named by the convention.
 */
export function shardProblems(d1: readonly { binding: string; name?: string }[]): string[] {
  const shards = auditShards(d1);
  if (shards.length === 0 || shardIndex(shards[0].binding) !== 0) return [`no ${AUDIT_DB} binding in d1_databases`];
  const problems: string[] = [];
  const base = shards[0].name ?? "";
  for (const [i, s] of shards.entries()) {
    const k = shardIndex(s.binding)!;
    if (k !== i) {
      problems.push(
        `audit shard ${s.binding} without ${shardBinding(i)}: the shards' bindings must be AUDIT_DB, AUDIT_DB_1, … with no gap`,
      );
      break;
    }
    if (k > 0 && s.name !== shardDatabaseName(base, k))
      problems.push(
        `audit shard ${s.binding}'s database is ${s.name ?? "unnamed"}, not ${shardDatabaseName(base, k)} (AUDIT_DB's name + "-${k}")`,
      );
  }
  if (shards.length > MAX_SHARDS) problems.push(`${shards.length} audit shards, more than ${MAX_SHARDS}`);
  return problems;
}

/** The D1 entries of N shards, given AUDIT_DB's database name (shard 0's entry included). */
export function shardEntries(base: string, n: number): D1Binding[] {
  return Array.from({ length: n }, (_, k) => ({
    binding: shardBinding(k),
    database_name: shardDatabaseName(base, k),
    migrations_dir: SHARD_MIGRATIONS_DIR,
  }));
}

/** Where a value sits in the text, and, for an object, its members; for an array, its elements. */
interface Span {
  start: number;
  end: number;
  members?: Map<string, Span>;
  elements?: Span[];
}

/** Positions of every object member and array element of a JSONC text (comments and trailing commas allowed). */
function spans(text: string): Span {
  let i = 0;
  const skip = () => {
    for (;;) {
      while (i < text.length && /\s/.test(text[i])) i++;
      if (text.startsWith("//", i)) {
        const nl = text.indexOf("\n", i);
        i = nl < 0 ? text.length : nl + 1;
      } else if (text.startsWith("/*", i)) {
        const end = text.indexOf("*/", i + 2);
        i = end < 0 ? text.length : end + 2;
      } else return;
    }
  };
  const string = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): Span => {
    skip();
    const start = i;
    const c = text[i];
    if (c === "{") {
      i++;
      const members = new Map<string, Span>();
      for (skip(); text[i] !== "}"; skip()) {
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] !== '"') throw new Error(`unexpected ${text[i]} at ${i}`);
        const key = string();
        skip();
        if (text[i++] !== ":") throw new Error(`expected : at ${i - 1}`);
        members.set(key, value());
      }
      i++;
      return { start, end: i, members };
    }
    if (c === "[") {
      i++;
      const elements: Span[] = [];
      for (skip(); text[i] !== "]"; skip()) {
        if (text[i] === ",") {
          i++;
          continue;
        }
        elements.push(value());
      }
      i++;
      return { start, end: i, elements };
    }
    if (c === '"') {
      string();
      return { start, end: i };
    }
    const m = /^[^\s,\]}/]+/.exec(text.slice(i));
    if (!m) throw new Error(`unexpected ${c} at ${i}`);
    i += m[0].length;
    return { start, end: i };
  };
  return value();
}

const one = (d: D1Binding): string =>
  `{ ${Object.entries(d)
    .map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`)
    .join(", ")} }`;

/** The rewritten config text and what its d1_databases now holds. */
export interface Rewrite {
  text: string;
  changed: boolean;
  d1: D1Binding[];
}

/**
 * `text` (a wrangler.jsonc) with the top level's, or environment `env`'s, d1_databases holding
 * exactly N audit shards by the convention; every other character of the file is kept.
 */
export function rewriteShards(text: string, n: number, env?: string): Rewrite {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SHARDS)
    throw new Error(`the number of audit shards must be a whole number from 1 to ${MAX_SHARDS}, not ${n}`);
  const where = env === undefined ? "the top level" : `environment "${env}"`;
  const root = spans(text);
  let scope = root;
  if (env !== undefined) {
    const envs = root.members?.get("env");
    const named = envs?.members?.get(env);
    if (!named?.members)
      throw new Error(
        `the config has no environment "${env}" (its environments: ${[...(envs?.members?.keys() ?? [])].join(", ") || "none"})`,
      );
    scope = named;
  }
  const list = scope.members?.get("d1_databases");
  const current = list?.elements?.map((e) => parseJsonc(text.slice(e.start, e.end)) as D1Binding) ?? [];
  const at = current.findIndex((d) => d.binding === AUDIT_DB);
  if (!list?.elements || at < 0)
    throw new Error(`${where} has no ${AUDIT_DB} binding in d1_databases: nothing to name the shards after`);
  const base = current[at].database_name;
  if (!base) throw new Error(`${where}: ${AUDIT_DB} has no database_name`);

  // AUDIT_DB's entry stays as written, the shards follow it, other D1 bindings keep their place.
  const texts: string[] = [];
  const d1: D1Binding[] = [];
  for (const [i, e] of list.elements.entries()) {
    const k = shardIndex(current[i].binding);
    if (k !== undefined && k > 0) continue;
    texts.push(text.slice(e.start, e.end));
    d1.push(current[i]);
    if (k === 0)
      for (const s of shardEntries(base, n).slice(1)) {
        texts.push(one(s));
        d1.push(s);
      }
  }
  if (JSON.stringify(d1) === JSON.stringify(current)) return { text, changed: false, d1 };

  // Between the elements there is nothing but commas and space; a comment there would be lost.
  const inner = text.slice(list.start + 1, list.end - 1);
  let between = inner;
  for (const e of [...list.elements].reverse())
    between = between.slice(0, e.start - list.start - 1) + between.slice(e.end - list.start - 1);
  if (/\/[/*]/.test(between))
    throw new Error(`${where}'s d1_databases has comments between its entries: move them above the array`);

  const lineStart = text.lastIndexOf("\n", list.start) + 1;
  const indent = /^\s*/.exec(text.slice(lineStart))![0];
  const multiLine = texts.length > 1 || inner.includes("\n");
  const array = multiLine
    ? `[\n${texts.map((t) => `${indent}  ${t}`).join(",\n")}\n${indent}]`
    : `[${texts.join(", ")}]`;
  return { text: text.slice(0, list.start) + array + text.slice(list.end), changed: true, d1 };
}

/** `<N> [--env <name>]`, parsed. */
export function parseArgs(argv: readonly string[]): { n: number; env?: string } {
  let env: string | undefined;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--env") {
      env = argv[++i];
      if (!env) throw new Error("--env needs an environment's name");
    } else if (a.startsWith("--env=")) env = a.slice("--env=".length);
    else rest.push(a);
  }
  if (rest.length !== 1 || !/^\d+$/.test(rest[0]))
    throw new Error("usage: npm run audit-shards -- <N> [--env <name>]   (N: the number of audit databases, 1 to 64)");
  return { n: Number(rest[0]), env };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    const { n, env } = parseArgs(process.argv.slice(2));
    const path = join(dirname(fileURLToPath(import.meta.url)), "..", "wrangler.jsonc");
    const result = rewriteShards(readFileSync(path, "utf8"), n, env);
    if (result.changed) writeFileSync(path, result.text);
    const where = env === undefined ? "top level" : `env ${env}`;
    console.log(
      `${result.changed ? "wrote" : "unchanged:"} wrangler.jsonc (${where}) d1_databases, ${n} audit shard${n === 1 ? "" : "s"}:`,
    );
    for (const d of result.d1) console.log(`  ${d.binding} → ${d.database_name ?? "(no name)"}`);
    if (result.changed)
      console.log(
        `Next: \`npm run deploy${env ? ` -- --env ${env}` : ""}\` creates each database and applies the migrations to each.`,
      );
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(1);
  }
}
