/**
 * `trt`'s command line: which command, its arguments and flags, and every usage error found
 * before anything is sent. Pure: the environment and the profiles file are read later
 * (connection.ts), so this can be tested with argv alone. The commands and flags are spec.ts.
 */
import { parseArgs } from "node:util";
import { UsageError } from "./exit-codes.ts";
import {
  COMMAND_SPECS,
  FLAGS,
  GLOBAL_FLAGS,
  specOf,
  subcommandsOf,
  TOP_LEVEL,
  type CommandSpec,
  type FlagName,
} from "./spec.ts";

export type OutputFormat = "table" | "json";

export interface Flags {
  url?: string;
  key?: string;
  profile?: string;
  output: OutputFormat;
  /** output === "json", for the commands' convenience. */
  json: boolean;
  async: boolean;
  stream: boolean;
  /** call: the tool's version. */
  version?: string;
  provider?: string;
  timeout?: number;
  grace?: number;
  status?: string;
  tool?: string;
  project?: string;
  since?: string;
  until?: string;
  /** usage: UTC days, YYYY-MM-DD (the runtime checks them). */
  from?: string;
  to?: string;
  limit?: number;
  cursor?: string;
  reason?: string;
  tenant?: string;
  agent?: string;
  capability?: string[];
  channel?: string[];
  role?: "tenant" | "approver" | "admin";
  hash?: string;
  /** bundles put: its selectors, each flag's values split at commas. */
  tools?: string[];
  prefixes?: string[];
  channels?: string[];
  tags?: string[];
  discovery?: "list" | "search";
  description?: string;
  keyEnv?: string;
  keyFile?: string;
  secretStore: boolean;
  default: boolean;
}

/**
 * `command` is a spec's name ("call", "keys create"), or "help" (args: the topic's words) or
 * "version" (trt's own).
 */
export interface Parsed {
  command: string;
  spec?: CommandSpec;
  args: string[];
  flags: Flags;
}

const SHORT: Record<string, string> = Object.fromEntries(
  Object.entries(FLAGS).flatMap(([name, f]) => ("short" in f ? [[f.short, name]] : [])),
);
const isGroup = (word: string) => subcommandsOf(word).length > 0;
const EMPTY: Flags = { output: "table", json: false, async: false, stream: false, secretStore: false, default: false };

export function parseCommandLine(argv: string[]): Parsed {
  const { words, kept, wantsVersion, wantsHelp } = scan(argv);
  if (wantsVersion) return { command: "version", args: [], flags: EMPTY };
  const [first, second] = words;
  if (first === undefined) return { command: "help", args: [], flags: EMPTY };
  if (first === "help") {
    const topic = words.length > 1 ? words.slice(1) : wantsHelp ? ["help"] : [];
    if (topic.length > 0) resolve(topic[0], topic[1], true);
    return { command: "help", args: topic, flags: EMPTY };
  }
  const spec = resolve(first, second, wantsHelp);
  if (wantsHelp || !spec) return { command: "help", args: spec ? spec.name.split(" ") : [first], flags: EMPTY };

  const options = Object.fromEntries([...GLOBAL_FLAGS, ...spec.flags].map((name) => [name, FLAGS[name]]));
  let parsed;
  try {
    parsed = parseArgs({ args: kept, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(flagProblem(err as Error & { code?: string }, spec));
  }
  const v = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const args = parsed.positionals.slice(spec.name.split(" ").length);
  if (args.length < spec.min || args.length > spec.max)
    throw new UsageError(`usage: trt ${spec.name} ${spec.args}`.trim() + ` (trt ${spec.name} --help)`);
  return { command: spec.name, spec, args, flags: toFlags(v, spec) };
}

/** The command words, the tokens for parseArgs, and trt's own --version / -V. */
function scan(argv: string[]) {
  const words: string[] = [];
  const kept: string[] = [];
  let wantsVersion = false;
  let wantsHelp = false;
  for (let i = 0; i < argv.length; i++) {
    const t = argv[i];
    if (t === "--") {
      kept.push(...argv.slice(i));
      words.push(...argv.slice(i + 1));
      break;
    }
    // Before a command (or after any but `call`, whose --version V is the tool's) it is trt's.
    if (t === "-V" || (t === "--version" && words[0] !== "call")) {
      wantsVersion = true;
      continue;
    }
    if (t === "--help" || t === "-h") wantsHelp = true;
    kept.push(t);
    if (t.startsWith("-") && t !== "-") {
      const name = t.startsWith("--") ? t.slice(2) : SHORT[t.slice(1)];
      const flag = (FLAGS as Record<string, { type: string }>)[name];
      // A string flag's value is not a command word.
      if (flag?.type === "string" && !t.includes("=") && i + 1 < argv.length) kept.push(argv[++i]);
      continue;
    }
    words.push(t);
  }
  return { words, kept, wantsVersion, wantsHelp };
}

/** The command `first second` names; for a group without a subcommand, undefined when help is asked. */
function resolve(first: string, second: string | undefined, forHelp: boolean): CommandSpec | undefined {
  if (!TOP_LEVEL.includes(first))
    throw new UsageError(`unknown command "${first}"${suggest(first, TOP_LEVEL)}; trt --help lists the commands`);
  if (!isGroup(first)) return specOf(first);
  const subs = subcommandsOf(first).map((c) => c.name.split(" ")[1]);
  if (second === undefined) {
    if (forHelp) return undefined;
    throw new UsageError(`trt ${first} needs a subcommand: ${subs.join(", ")} (trt ${first} --help)`);
  }
  if (!subs.includes(second))
    throw new UsageError(
      `unknown command "${first} ${second}"${suggest(second, subs)}; the ${first} commands are ${subs.join(", ")}`,
    );
  return specOf(`${first} ${second}`);
}

function toFlags(v: Record<string, string | boolean | string[] | undefined>, spec: CommandSpec): Flags {
  const str = (name: string) => v[name] as string | undefined;
  const output = v.json ? "json" : (str("output") ?? "table");
  if (output !== "table" && output !== "json") throw new UsageError(`--output must be table or json, not "${output}"`);
  if (v.json && str("output") === "table") throw new UsageError("--json and --output table contradict each other");
  const role = str("role");
  if (role !== undefined && !["agent", "tenant_admin", "approver", "admin", "tenant"].includes(role))
    throw new UsageError(`--role must be agent, tenant_admin, approver or admin, not "${role}"`);
  const discovery = str("discovery");
  if (discovery !== undefined && discovery !== "list" && discovery !== "search")
    throw new UsageError(`--discovery must be list or search, not "${discovery}"`);
  if (str("version") !== undefined && str("tool-version") !== undefined)
    throw new UsageError("--version and --tool-version say the same thing; give one");
  const flags: Flags = {
    url: str("url"),
    key: str("key"),
    profile: str("profile"),
    output,
    json: output === "json",
    async: v.async === true,
    stream: v.stream === true,
    version: str("version") ?? str("tool-version"),
    provider: str("provider"),
    timeout: integer("--timeout", str("timeout"), 1),
    grace: integer("--grace", str("grace"), 0),
    status: str("status"),
    tool: str("tool"),
    project: str("project"),
    since: time("--since", str("since")),
    until: time("--until", str("until")),
    from: str("from"),
    to: str("to"),
    limit: integer("--limit", str("limit"), 1),
    cursor: str("cursor"),
    reason: str("reason"),
    tenant: str("tenant"),
    agent: str("agent"),
    capability: v.capability as string[] | undefined,
    channel: v.channel as string[] | undefined,
    role: role as Flags["role"],
    hash: str("hash"),
    tools: commaList(v.tools),
    prefixes: commaList(v.prefixes),
    channels: commaList(v.channels),
    tags: commaList(v.tags),
    discovery: discovery as Flags["discovery"],
    description: str("description"),
    keyEnv: str("key-env"),
    keyFile: str("key-file"),
    secretStore: v["secret-store"] === true,
    default: v.default === true,
  };
  required(spec, flags);
  return flags;
}

/** Flags a command cannot do without, refused before anything is sent. */
function required(spec: CommandSpec, f: Flags): void {
  if (spec.name === "reject" && !f.reason?.trim())
    throw new UsageError("trt reject needs --reason TEXT: a rejection says why");
  if (f.async && f.stream)
    throw new UsageError(
      "--async and --stream exclude each other: --async returns at once, --stream follows the events",
    );
  if (spec.name === "keys create" && (!f.tenant || !f.agent))
    throw new UsageError("trt keys create needs --tenant T and --agent A");
  if ((spec.name === "upstreams approve" || spec.name === "upstreams reject") && !f.hash)
    throw new UsageError(`trt ${spec.name} needs --hash H: the new_hash that trt upstreams show lists`);
  if (spec.name === "bundles put" && ![f.tools, f.prefixes, f.channels, f.tags].some((l) => l?.length))
    throw new UsageError(
      "trt bundles put needs at least one of --tools, --prefixes, --channels, --tags: a bundle selects its tools by them",
    );
  if (spec.name === "profile add") {
    if (!f.url) throw new UsageError("trt profile add needs --url URL");
    const sources = [f.keyEnv, f.keyFile, f.secretStore || undefined].filter((x) => x !== undefined);
    if (sources.length > 1) throw new UsageError("give one of --key-env, --key-file and --secret-store");
    if (f.key)
      throw new UsageError(
        "a profile keeps where the key is, never the key: use --key-env VAR, --key-file PATH or --secret-store",
      );
  }
}

function flagProblem(err: Error & { code?: string }, spec: CommandSpec): string {
  const see = `trt ${spec.name} --help lists its flags`;
  const unknown = /Unknown option '([^']+)'/.exec(err.message);
  if (unknown) {
    const name = unknown[1].replace(/^-+/, "");
    return `unknown flag ${unknown[1]} for trt ${spec.name}${suggest(name, [...GLOBAL_FLAGS, ...spec.flags], "--")}; ${see}`;
  }
  const missing = /Option '(?:-\w, )?(--[\w-]+)[^']*' argument (?:missing|is ambiguous)/.exec(err.message);
  if (missing) {
    const flag = missing[1];
    const why =
      flag === "--version" ? ": after `call` it is the tool's version (--version V); trt's own is trt --version" : "";
    return `${flag} needs a value${why}; ${see}`;
  }
  return `${err.message.split(". ")[0]}; ${see}`;
}

/** "; did you mean …?" for a near miss (at most two edits), else "". */
export function suggest(word: string, known: readonly string[], prefix = ""): string {
  const near = known
    .map((k) => [k, distance(word, k)] as const)
    .filter(([, d]) => d <= 2)
    .sort((a, b) => a[1] - b[1])[0];
  return near ? ` (did you mean ${prefix}${near[0]}?)` : "";
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]++;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

/** A repeatable flag's values, each split at commas: `--tools a,b --tools c` is a, b, c. */
function commaList(raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  return (raw as string[])
    .flatMap((x) => x.split(","))
    .map((x) => x.trim())
    .filter(Boolean);
}

function integer(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${name} must be a whole number of at least ${min}, not "${raw}"`);
  return n;
}

function time(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (Number.isNaN(Date.parse(raw)))
    throw new UsageError(`${name} must be an ISO 8601 date-time such as 2026-12-01T12:00:00Z, not "${raw}"`);
  return raw;
}

export { COMMAND_SPECS };
