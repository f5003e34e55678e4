/**
 * `trt`, the Tool Runtime's command line (package.json "bin"; built to dist/cli/trt.js by
 * `npm run build:client`). Built on the typed client; see `trt --help` and cli/args.ts.
 */
import { createClient, ToolRuntimeError } from "../client/index.ts";
import { parseCommandLine, USAGE, type Command } from "./args.ts";
import { admin } from "./commands/admin.ts";
import { call } from "./commands/call.ts";
import { ls, tools } from "./commands/listings.ts";
import { approvals, approve, cancel, get, reject, watch } from "./commands/watch.ts";
import type { Cli } from "./context.ts";
import { EXIT, exitCodeOfError, UsageError } from "./exit-codes.ts";
import { renderError } from "./render.ts";

const COMMANDS: Record<Exclude<Command, "admin">, (cli: Cli, args: string[]) => Promise<number>> = { tools, call, get, watch, cancel, ls, approvals, approve, reject };

async function main(argv: string[]): Promise<number> {
  let json = argv.includes("--json");
  try {
    const { command, args, flags } = parseCommandLine(argv, process.env);
    json = flags.json;
    if (command === "help") {
      process.stdout.write(USAGE);
      return EXIT.ok;
    }
    // The bootstrap's credential is the deployment's BOOTSTRAP_TOKEN, not an API key.
    if (command === "admin") return await admin({ flags, env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr }, args);
    if (!flags.key) throw new UsageError("no API key: set TRT_KEY or pass --key (a trt_… key or a JWT)");
    const cli: Cli = {
      client: createClient({ baseUrl: flags.url, apiKey: flags.key }),
      flags,
      stdout: process.stdout,
      stderr: process.stderr,
      onInterrupt(handler) {
        process.on("SIGINT", handler);
        return () => process.off("SIGINT", handler);
      },
    };
    return await COMMANDS[command](cli, args);
  } catch (err) {
    return report(err, json);
  }
}

function report(err: unknown, json: boolean): number {
  const code = exitCodeOfError(err);
  if (err instanceof ToolRuntimeError) {
    if (json) process.stdout.write(`${JSON.stringify(err.execution ?? { error: { code: err.code, message: err.message, retryable: err.retryable, status: err.status, details: err.details } }, null, 2)}\n`);
    process.stderr.write(renderError(err));
  } else if (err instanceof UsageError) {
    process.stderr.write(`trt: ${err.message}\n(trt --help shows the commands)\n`);
  } else {
    process.stderr.write(`trt: ${(err as Error)?.stack ?? String(err)}\n`);
  }
  return code;
}

process.exitCode = await main(process.argv.slice(2));
