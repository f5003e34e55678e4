/**
 * `trt call TOOL [JSON | @file | -] [--async | --stream]`. Without --async the call is made
 * as a streamed call even when its events are not printed: the execution id arrives at once,
 * so progress can be drawn and Ctrl-C can cancel the execution (a plain sync call's id
 * reaches the caller only with its answer).
 */
import type { ExecutionView, InvokeOptions } from "../../client/index.ts";
import type { Cli } from "../context.ts";
import { EXIT, exitCodeOfStatus } from "../exit-codes.ts";
import { readInput } from "../input.ts";
import { pretty, renderView } from "../render.ts";
import { dropNote, follow } from "./follow.ts";

export async function call(cli: Cli, [tool, inputArg]: string[]): Promise<number> {
  const { flags, client } = cli;
  const input = await readInput(inputArg);
  const options: InvokeOptions = {
    ...(flags.version ? { version: flags.version } : {}),
    ...(flags.provider ? { provider: flags.provider } : {}),
    ...(flags.timeout ? { limits: { timeout_ms: flags.timeout } } : {}),
  };
  if (flags.async) {
    const started = await client.start(tool, input, options);
    cli.stdout.write(flags.json ? `${pretty(started)}\n` : `started ${started.execution_id} (${started.status})\n  trt watch ${started.execution_id}\n`);
    return EXIT.ok;
  }

  const abort = new AbortController();
  let executionId: string | undefined;
  let cancelling: Promise<ExecutionView> | undefined;
  const cancel = () => {
    cancelling ??= client.cancel(executionId!).finally(() => abort.abort());
  };
  let interrupts = 0;
  const stopListening = cli.onInterrupt(() => {
    if (++interrupts > 1) {
      cli.stderr.write(`\nleft ${executionId ?? "the call"} running\n`);
      process.exit(EXIT.interrupted);
    }
    cli.stderr.write(`\ncancelling ${executionId ?? "the call"} (Ctrl-C again to leave it running)…\n`);
    if (executionId) cancel();
  });
  try {
    const streamed = await client.invokeStream(tool, input, { ...options, signal: abort.signal, onDrop: dropNote(cli) });
    executionId = streamed.execution_id;
    if (interrupts > 0) cancel();
    const { terminal } = await follow(cli, streamed.events, { show: flags.stream });
    if (cancelling) {
      const view = await cancelling;
      if (!(flags.stream && flags.json)) cli.stdout.write(flags.json ? `${pretty(view)}\n` : renderView(view));
      return EXIT.interrupted;
    }
    if (flags.stream && flags.json) return terminal?.type === "done" ? EXIT.ok : EXIT.failed;
    const view = await client.get(executionId);
    cli.stdout.write(flags.json ? `${pretty(view)}\n` : renderView(view));
    return exitCodeOfStatus(view.status);
  } finally {
    stopListening();
  }
}
