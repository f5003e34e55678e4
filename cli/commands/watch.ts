/** `trt watch ID`: every event to the end, resuming after drops; Ctrl-C stops watching only. */
import type { Cli } from "../context.ts";
import { EXIT, exitCodeOfStatus } from "../exit-codes.ts";
import { pretty, renderApprovals, renderView } from "../render.ts";
import { dropNote, follow } from "./follow.ts";

export async function watch(cli: Cli, [id]: string[]): Promise<number> {
  const abort = new AbortController();
  const stopListening = cli.onInterrupt(() => abort.abort());
  try {
    const { terminal } = await follow(cli, cli.client.stream(id, { signal: abort.signal, onDrop: dropNote(cli) }), {
      show: true,
    });
    if (!terminal) {
      cli.stderr.write(`stopped watching; ${id} goes on (trt cancel ${id} stops it)\n`);
      return EXIT.interrupted;
    }
    if (cli.flags.json) return terminal.type === "done" ? EXIT.ok : EXIT.failed;
    const view = await cli.client.get(id);
    cli.stdout.write(renderView(view));
    return exitCodeOfStatus(view.status);
  } finally {
    stopListening();
  }
}

export async function get(cli: Cli, [id]: string[]): Promise<number> {
  const view = await cli.client.get(id);
  cli.stdout.write(cli.flags.json ? `${pretty(view)}\n` : renderView(view));
  return exitCodeOfStatus(view.status);
}

export async function cancel(cli: Cli, [id]: string[]): Promise<number> {
  const view = await cli.client.cancel(id, cli.flags.grace !== undefined ? { grace_ms: cli.flags.grace } : {});
  cli.stdout.write(cli.flags.json ? `${pretty(view)}\n` : renderView(view));
  return EXIT.ok;
}

/** The caller's tenant's calls awaiting a person's approval. */
export async function approvals(cli: Cli): Promise<number> {
  const { approvals: pending } = await cli.client.listApprovals();
  cli.stdout.write(cli.flags.json ? `${pretty({ approvals: pending })}\n` : renderApprovals(pending));
  return EXIT.ok;
}

export async function approve(cli: Cli, [id]: string[]): Promise<number> {
  const view = await cli.client.approve(id, cli.flags.reason !== undefined ? { reason: cli.flags.reason } : {});
  cli.stdout.write(cli.flags.json ? `${pretty(view)}\n` : renderView(view));
  return EXIT.ok;
}

export async function reject(cli: Cli, [id]: string[]): Promise<number> {
  const view = await cli.client.reject(id, cli.flags.reason!);
  cli.stdout.write(cli.flags.json ? `${pretty(view)}\n` : renderView(view));
  return EXIT.ok;
}
