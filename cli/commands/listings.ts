/** `trt tools [NAME]` and `trt ls`. */
import type { Cli } from "../context.ts";
import { EXIT } from "../exit-codes.ts";
import { pretty, renderExecutions, renderTool, renderTools } from "../render.ts";

export async function tools(cli: Cli, [name]: string[]): Promise<number> {
  if (name) {
    const tool = await cli.client.getTool(name);
    cli.stdout.write(cli.flags.json ? `${pretty(tool)}\n` : renderTool(tool));
  } else {
    const list = await cli.client.listTools();
    cli.stdout.write(cli.flags.json ? `${pretty(list)}\n` : renderTools(list.tools));
  }
  return EXIT.ok;
}

export async function ls(cli: Cli): Promise<number> {
  const { status, tool, since, until, limit, cursor } = cli.flags;
  const page = await cli.client.listExecutions({ status, tool, since, until, limit, cursor });
  cli.stdout.write(cli.flags.json ? `${pretty(page)}\n` : renderExecutions(page.executions, page.next_cursor));
  return EXIT.ok;
}
