/**
 * `trt call TOOL [JSON | @file | -] [--async | --stream]`. Without a flag, trt waits for the
 * result: an instant or fast tool is called plainly (mode sync, the runtime's fast path); a
 * slow or long-running one is called as a stream whose events are not printed, because only
 * a stream gives the execution id at once — so a progress bar can be drawn and Ctrl-C can
 * cancel the execution (a plain sync call's id reaches the caller only with its answer).
 */
import { ToolRuntimeError, type ExecutionView, type InvokeOptions } from "../../client/index.ts";
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
    cli.stdout.write(
      flags.json
        ? `${pretty(started)}\n`
        : `started ${started.execution_id} (${started.status})\n  trt watch ${started.execution_id}\n`,
    );
    return EXIT.ok;
  }

  if (!flags.stream && (await isQuick(cli, tool))) {
    const stopListening = cli.onInterrupt(() => {
      cli.stderr.write(
        "\ninterrupted; a quick call cannot be cancelled from here (its id comes with its answer), and it ends within its timeout\n",
      );
      process.exit(EXIT.interrupted);
    });
    try {
      const view = await client.invoke(tool, input, options).catch((err: unknown) => {
        // The execution ran and failed: its view is the answer (exit 1), not a refusal.
        if (err instanceof ToolRuntimeError && err.execution) return err.execution;
        throw err;
      });
      cli.stdout.write(flags.json ? `${pretty(view)}\n` : renderView(view));
      return exitCodeOfStatus(view.status);
    } finally {
      stopListening();
    }
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
    const streamed = await client.invokeStream(tool, input, {
      ...options,
      signal: abort.signal,
      onDrop: dropNote(cli),
    });
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

/** Instant and fast tools (the active version's best provider says) are called plainly. */
async function isQuick(cli: Cli, tool: string): Promise<boolean> {
  const view = await cli.client.getTool(tool);
  const version =
    view.versions.find((v) => (cli.flags.version ? v.version === cli.flags.version : v.active)) ?? view.versions[0];
  const latency = version?.providers[0]?.latency_class;
  return latency === "instant" || latency === "fast";
}
