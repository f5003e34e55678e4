/**
 * `trt`, the Tool Runtime's command line (package.json "bin" is bin/trt.js, which runs this
 * file; `npm run build:client` also builds it to dist/cli/trt.js for Node 20). Built on the
 * typed client; the commands and flags are cli/spec.ts, the reference docs/trt.md.
 */
import { createClient, ToolRuntimeError } from "../client/index.ts";
import { parseCommandLine } from "./args.ts";
import { bootstrap } from "./commands/admin.ts";
import { audit } from "./commands/audit.ts";
import { bundlesList, bundlesPut, bundlesRemove, bundlesShow } from "./commands/bundles.ts";
import { usage } from "./commands/usage.ts";
import { call } from "./commands/call.ts";
import { keysCreate, keysList, keysRevoke } from "./commands/keys.ts";
import { ls, tools } from "./commands/listings.ts";
import { profileAdd, profileList, profileRemove, profileShow, type ProfileCli } from "./commands/profile.ts";
import {
  upstreamsAdd,
  upstreamsApprove,
  upstreamsList,
  upstreamsRefresh,
  upstreamsReject,
  upstreamsRemove,
  upstreamsShow,
} from "./commands/upstreams.ts";
import { approvals, approve, cancel, get, reject, watch } from "./commands/watch.ts";
import { completionScript } from "./completion.ts";
import { resolveConnection } from "./connection.ts";
import type { Cli, Out } from "./context.ts";
import { EXIT, exitCodeOfError, UsageError } from "./exit-codes.ts";
import { commandUsage, generalUsage } from "./help.ts";
import { renderError } from "./render.ts";
import { terminalSafe } from "./terminal-text.ts";
import { cliVersion } from "./version.ts";

/** The commands that talk to the runtime with an API key. */
const WITH_KEY: Record<string, (cli: Cli, args: string[]) => Promise<number>> = {
  tools,
  call,
  get,
  watch,
  cancel,
  ls,
  approvals,
  approve,
  reject,
  audit,
  usage,
  "keys list": keysList,
  "keys create": keysCreate,
  "keys revoke": keysRevoke,
  "upstreams list": upstreamsList,
  "upstreams show": upstreamsShow,
  "upstreams add": upstreamsAdd,
  "upstreams remove": upstreamsRemove,
  "upstreams refresh": upstreamsRefresh,
  "upstreams approve": upstreamsApprove,
  "upstreams reject": upstreamsReject,
  "bundles list": bundlesList,
  "bundles show": bundlesShow,
  "bundles put": bundlesPut,
  "bundles remove": bundlesRemove,
};

const PROFILE: Record<string, (cli: ProfileCli, args: string[]) => Promise<number>> = {
  "profile add": profileAdd,
  "profile list": profileList,
  "profile show": profileShow,
  "profile remove": profileRemove,
};

async function main(argv: string[]): Promise<number> {
  let json =
    argv.includes("--json") ||
    argv.some((a, i) => a === "--output=json" || ((a === "--output" || a === "-o") && argv[i + 1] === "json"));
  // Provider and server text reaches a terminal: nothing in it may drive the terminal.
  const stdout = terminalSafe(process.stdout, () => json);
  const stderr = terminalSafe(process.stderr, () => false);
  const warn = (line: string) => stderr.write(`${line}\n`);
  try {
    const { command, args, flags } = parseCommandLine(argv);
    json = flags.json;
    if (command === "version") return print(`${cliVersion()}\n`);
    if (command === "help") return print(args.length ? commandUsage(args) : generalUsage());
    if (command === "completion") return print(completionScript(args[0]));
    const io = { flags, env: process.env, stdin: process.stdin, stdout, stderr };
    if (command in PROFILE) return await PROFILE[command](io, args);
    const conn = resolveConnection(flags, process.env, warn);
    // The bootstrap's credential is the deployment's BOOTSTRAP_TOKEN, not an API key.
    if (command === "admin bootstrap") return await bootstrap({ ...io, url: conn.url });
    const key = conn.key;
    if (!key)
      throw new UsageError(
        "no API key: set TRT_KEY, or add a profile (trt profile add NAME --url URL --key-env VAR), or pass --profile",
      );
    const cli: Cli = {
      client: createClient({ baseUrl: conn.url, apiKey: key }),
      conn: { ...conn, key },
      flags,
      stdout,
      stderr,
      terminal: process.stderr,
      onInterrupt(handler) {
        process.on("SIGINT", handler);
        return () => process.off("SIGINT", handler);
      },
    };
    return await WITH_KEY[command](cli, args);
  } catch (err) {
    return report(err, json, stdout, stderr);
  }
}

function print(text: string): number {
  process.stdout.write(text);
  return EXIT.ok;
}

function report(err: unknown, json: boolean, stdout: Out, stderr: Out): number {
  const code = exitCodeOfError(err);
  if (err instanceof UsageError) {
    // One line naming the problem (with its hint); nothing was sent.
    stderr.write(`trt: ${err.message}\n`);
    return code;
  }
  const e = err as { code?: unknown; status?: unknown; message?: string; details?: unknown; execution?: unknown };
  if (typeof e?.code === "string" && typeof e.status === "number") {
    if (json)
      stdout.write(
        `${JSON.stringify(e.execution ?? { error: { code: e.code, message: e.message, status: e.status, details: e.details } }, null, 2)}\n`,
      );
    if (err instanceof ToolRuntimeError) stderr.write(renderError(err));
    else stderr.write(`trt: ${e.message} (${e.code}${e.status ? `, HTTP ${e.status}` : ""})\n${hint(e.status)}`);
    return code;
  }
  stderr.write(`trt: ${(err as Error)?.stack ?? String(err)}\n`);
  return code;
}

function hint(status: number): string {
  if (status === 401)
    return "  The runtime did not accept this API key: check TRT_KEY or the profile (trt profile show).\n";
  if (status === 403) return "  This needs an operator's key (role admin).\n";
  if (status === 0) return "  Check TRT_URL, --url or the profile's url, and that the runtime is running.\n";
  return "";
}

process.exitCode = await main(process.argv.slice(2));
