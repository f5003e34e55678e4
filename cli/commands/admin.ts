/**
 * `trt admin bootstrap`: a fresh deployment's first operator key (`POST /v1/admin/bootstrap`).
 * The bootstrap token comes from TRT_BOOTSTRAP_TOKEN or standard input, never the command line,
 * where other users of the machine and the shell's history could read it.
 */
import { bootstrapOperator, ToolRuntimeError } from "../../client/index.ts";
import type { Flags } from "../args.ts";
import type { Out } from "../context.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { pretty } from "../render.ts";

export interface AdminCli {
  flags: Flags;
  /** The runtime, from --url, the profile or TRT_URL. */
  url: string;
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Out;
  stderr: Out;
  fetch?: typeof fetch;
}

export async function bootstrap(cli: AdminCli): Promise<number> {
  const bootstrapToken = cli.env.TRT_BOOTSTRAP_TOKEN?.trim() || (await readToken(cli));
  if (!bootstrapToken)
    throw new UsageError(
      "no bootstrap token: set TRT_BOOTSTRAP_TOKEN or pipe it on standard input (never as an argument)",
    );
  let minted;
  try {
    minted = await bootstrapOperator({
      baseUrl: cli.url,
      bootstrapToken,
      tenant: cli.flags.tenant,
      agent: cli.flags.agent,
      fetch: cli.fetch,
    });
  } catch (err) {
    // The general advice (set TRT_KEY…) is about API keys; the bootstrap's refusals say their own.
    const why = err instanceof ToolRuntimeError && !err.local ? refusalOf(err) : undefined;
    if (!why || !(err instanceof ToolRuntimeError)) throw err;
    if (cli.flags.json)
      cli.stdout.write(
        `${pretty({ error: { code: err.code, message: err.message, retryable: err.retryable, status: err.status, details: err.details } })}\n`,
      );
    cli.stderr.write(`trt: ${why}\n`);
    return EXIT.refused;
  }
  if (cli.flags.json) {
    cli.stdout.write(`${pretty(minted)}\n`);
  } else {
    cli.stdout.write(`${minted.key}\n`);
    cli.stderr.write(
      [
        `✓ operator key ${minted.key_id} (tenant ${minted.tenant}, agent ${minted.agent}, role ${minted.role}): shown this once, above.`,
        "Store it now, e.g. in a password manager or a secret store; then use it as TRT_KEY.",
        "This deployment's bootstrap is used: more keys come from trt keys create (POST /v1/admin/keys) with this key,",
        "and BOOTSTRAP_TOKEN can go: npx wrangler secret delete BOOTSTRAP_TOKEN",
        "",
      ].join("\n"),
    );
  }
  return EXIT.ok;
}

function refusalOf(err: ToolRuntimeError): string | undefined {
  if (err.code === "unauthenticated")
    return "the runtime did not accept this bootstrap token: it is not the deployment's BOOTSTRAP_TOKEN.";
  if (err.code === "forbidden") return `${err.message}.`;
  if (err.code === "not_found")
    return "this runtime offers no bootstrap: it has no BOOTSTRAP_TOKEN (npx wrangler secret put BOOTSTRAP_TOKEN), or --url is not the runtime.";
  return undefined;
}

/** The first line of standard input (asked for when it is a terminal). */
async function readToken(cli: AdminCli): Promise<string> {
  if (cli.stdin.isTTY) cli.stderr.write("bootstrap token (BOOTSTRAP_TOKEN), then Enter: ");
  let text = "";
  for await (const chunk of cli.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split("\n")[0].trim();
}
