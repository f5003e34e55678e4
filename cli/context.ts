/** What every command gets: the client, the connection, the flags, the two output streams and Ctrl-C. */
import type { ToolRuntimeClient } from "../client/index.ts";
import type { Flags } from "./args.ts";
import type { Connection } from "./connection.ts";

export interface Out {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface Cli {
  client: ToolRuntimeClient;
  /** The runtime's URL and the key (cli/api.ts uses them for what the client has no method for). */
  conn: Connection & { key: string };
  flags: Flags;
  /** Both strip control sequences from what they carry (cli/terminal-text.ts). */
  stdout: Out;
  stderr: Out;
  /** stderr as it is, for the progress bar's own control codes. */
  terminal: Out;
  /** Runs `handler` on each Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
}
