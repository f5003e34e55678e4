/**
 * `trt admin bootstrap`: a fresh deployment's first operator key (`POST /v1/admin/bootstrap`).
 * The bootstrap token comes from TRT_BOOTSTRAP_TOKEN or standard input, never the command line,
 * where other users of the machine and the shell's history could read it.
 */
import { bootstrapOperator } from "../../client/index.ts";
import type { Parsed } from "../args.ts";
import type { Out } from "../context.ts";
import { EXIT, UsageError } from "../exit-codes.ts";
import { pretty } from "../render.ts";

export interface AdminCli {
  flags: Parsed["flags"];
  env: Record<string, string | undefined>;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Out;
  stderr: Out;
  fetch?: typeof fetch;
}

export async function admin(cli: AdminCli, [sub]: string[]): Promise<number> {
  if (sub !== "bootstrap") throw new UsageError(`unknown admin command "${sub}"; the admin commands are: bootstrap`);
  const bootstrapToken = cli.env.TRT_BOOTSTRAP_TOKEN?.trim() || (await readToken(cli));
  if (!bootstrapToken) throw new UsageError("no bootstrap token: set TRT_BOOTSTRAP_TOKEN or pipe it on standard input (never as an argument)");
  const minted = await bootstrapOperator({ baseUrl: cli.flags.url, bootstrapToken, tenant: cli.flags.tenant, agent: cli.flags.agent, fetch: cli.fetch });
  if (cli.flags.json) {
    cli.stdout.write(`${pretty(minted)}\n`);
  } else {
    cli.stdout.write(`${minted.key}\n`);
    cli.stderr.write(
      [
        `✓ operator key ${minted.key_id} (tenant ${minted.tenant}, agent ${minted.agent}, role ${minted.role}): shown this once, above.`,
        "Store it now, e.g. in a password manager or a secret store; then use it as TRT_KEY.",
        "This deployment's bootstrap is used: more keys come from POST /v1/admin/keys with this key,",
        "and BOOTSTRAP_TOKEN can go: npx wrangler secret delete BOOTSTRAP_TOKEN",
        "",
      ].join("\n"),
    );
  }
  return EXIT.ok;
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
