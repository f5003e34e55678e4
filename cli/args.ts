/** `trt`'s command line: commands, flags and the environment (TRT_URL, TRT_KEY). */
import { parseArgs } from "node:util";
import { UsageError } from "./exit-codes.ts";

export const COMMANDS = ["tools", "call", "get", "watch", "cancel", "ls", "approvals", "approve", "reject", "admin"] as const;
export type Command = (typeof COMMANDS)[number];

export const USAGE = `usage: trt <command> [options]

  tools [NAME]                          list the tools, or describe one
  call TOOL [JSON | @file | -]          run a tool and wait for its result (progress on stderr)
       [--async | --stream] [--version V] [--provider P] [--timeout MS]
  get ID                                an execution's status and result
  watch ID                              follow an execution's events to its end (resumes after drops)
  cancel ID [--grace MS]                cancel an execution
  ls [--status S] [--tool T] [--limit N] [--cursor C]
                                        your executions, newest first
  approvals                             calls of your tenant awaiting approval (approver role)
  approve ID [--reason TEXT]            let a call awaiting approval run (approver role)
  reject ID --reason TEXT               refuse it: it ends failed, never run (approver role)
  admin bootstrap [--tenant T] [--agent A]
                                        a new deployment's first operator key, once; the token
                                        from $TRT_BOOTSTRAP_TOKEN or standard input (no --key)

  --url URL    the runtime (default $TRT_URL, else http://127.0.0.1:8787)
  --key KEY    the API key (default $TRT_KEY)
  --json       output for scripts: one JSON document (--stream: one event per line)
  -h, --help   this text

Ctrl-C during \`trt call\` cancels the execution; during \`trt watch\` it only stops watching.
Exit codes: 0 done · 1 the execution failed, timed out or was cancelled · 2 bad arguments or
input (nothing sent) · 3 the runtime refused the request · 4 the runtime could not be reached ·
130 interrupted.
`;

export interface Parsed {
  command: Command | "help";
  args: string[];
  flags: {
    url: string;
    key?: string;
    json: boolean;
    async: boolean;
    stream: boolean;
    version?: string;
    provider?: string;
    timeout?: number;
    grace?: number;
    status?: string;
    tool?: string;
    limit?: number;
    cursor?: string;
    reason?: string;
    tenant?: string;
    agent?: string;
  };
}

const ARITY: Record<Command, [min: number, max: number, names: string]> = {
  tools: [0, 1, "[NAME]"],
  call: [1, 2, "TOOL [JSON | @file | -]"],
  get: [1, 1, "ID"],
  watch: [1, 1, "ID"],
  cancel: [1, 1, "ID"],
  ls: [0, 0, ""],
  approvals: [0, 0, ""],
  approve: [1, 1, "ID"],
  reject: [1, 1, "ID"],
  admin: [1, 1, "bootstrap"],
};

export function parseCommandLine(argv: string[], env: Record<string, string | undefined>): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: "string" },
        key: { type: "string" },
        json: { type: "boolean", default: false },
        async: { type: "boolean", default: false },
        stream: { type: "boolean", default: false },
        version: { type: "string" },
        provider: { type: "string" },
        timeout: { type: "string" },
        grace: { type: "string" },
        status: { type: "string" },
        tool: { type: "string" },
        limit: { type: "string" },
        cursor: { type: "string" },
        reason: { type: "string" },
        tenant: { type: "string" },
        agent: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values: v, positionals } = parsed;
  const [first, ...args] = positionals;
  const flags: Parsed["flags"] = {
    url: v.url ?? env.TRT_URL ?? "http://127.0.0.1:8787",
    key: v.key ?? env.TRT_KEY,
    json: v.json,
    async: v.async,
    stream: v.stream,
    version: v.version,
    provider: v.provider,
    timeout: integer("--timeout", v.timeout, 1),
    grace: integer("--grace", v.grace, 0),
    status: v.status,
    tool: v.tool,
    limit: integer("--limit", v.limit, 1),
    cursor: v.cursor,
    reason: v.reason,
    tenant: v.tenant,
    agent: v.agent,
  };
  if (v.help || first === undefined || first === "help") return { command: "help", args: [], flags };
  if (!(COMMANDS as readonly string[]).includes(first)) throw new UsageError(`unknown command "${first}"; the commands are ${COMMANDS.join(", ")}`);
  const command = first as Command;
  const [min, max, names] = ARITY[command];
  if (args.length < min || args.length > max) throw new UsageError(`usage: trt ${command} ${names}`.trim());
  if (command === "reject" && !flags.reason?.trim()) throw new UsageError("trt reject needs --reason TEXT: a rejection says why");
  if (flags.async && flags.stream) throw new UsageError("--async and --stream exclude each other: --async returns at once, --stream follows the events");
  return { command, args, flags };
}

function integer(name: string, raw: string | undefined, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`${name} must be a whole number of at least ${min}, not "${raw}"`);
  return n;
}
