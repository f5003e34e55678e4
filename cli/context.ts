/** What every command gets: the client, the flags, the two output streams and Ctrl-C. */
import type { ToolRuntimeClient } from "../client/index.ts";
import type { Parsed } from "./args.ts";

export interface Out {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Cli {
  client: ToolRuntimeClient;
  flags: Parsed["flags"];
  stdout: Out;
  stderr: Out;
  /** Runs `handler` on each Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}
