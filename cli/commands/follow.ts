/**
 * Following an execution's events to the end, for `trt call` and `trt watch`: a progress
 * bar from `progress` events, each event printed when asked, a note when the connection
 * drops (the client resumes after the last event by itself).
 */
import { describeEvent, progressFraction, type StreamEvent } from "../../client/index.ts";
import type { Cli } from "../context.ts";
import { ProgressBar } from "../progress-bar.ts";
import { renderEvent } from "../render.ts";

export interface FollowResult {
  /** The terminal event, or null when following stopped before it (Ctrl-C). */
  terminal: StreamEvent | null;
}

export async function follow(
  cli: Cli,
  events: AsyncIterable<StreamEvent>,
  o: { show: boolean },
): Promise<FollowResult> {
  const bar = new ProgressBar(cli.terminal);
  for await (const event of events) {
    const fraction = event.type === "progress" ? progressFraction(event.data) : null;
    if (fraction !== null && !cli.flags.json)
      bar.update(fraction, typeof event.data?.remaining === "number" ? `${event.data.remaining} to go` : "");
    if (o.show) {
      bar.clear();
      cli.stdout.write(cli.flags.json ? `${JSON.stringify(event)}\n` : renderEvent(event));
    }
    if (describeEvent(event.type).terminal) {
      bar.clear();
      return { terminal: event };
    }
  }
  bar.clear();
  return { terminal: null };
}

/** The note printed when a stream drops; the client is already reconnecting. */
export function dropNote(cli: Cli) {
  return ({ reconnect, after }: { reconnect: number; after: number }) => {
    if (!cli.flags.json) cli.stderr.write(`connection dropped; reconnecting (try ${reconnect}) from event ${after}…\n`);
  };
}
