/**
 * `trt`'s exit codes: a script can tell a refused call from a failed execution from a
 * runtime it could not reach, without parsing output.
 */
import { describeStatus } from "../client/index.ts";

export const EXIT = {
  /** Done; the execution (if any) succeeded or is still going. */
  ok: 0,
  /** The execution ran and failed, timed out or was cancelled. */
  failed: 1,
  /** Bad arguments or input (unreadable file, not JSON, no key): nothing was sent. */
  usage: 2,
  /** The runtime refused the request (credentials, validation, unknown tool or id, rate limit). */
  refused: 3,
  /** The runtime could not be reached, or its answer was not the API's. */
  network: 4,
  /** Ctrl-C (128 + SIGINT), after cancelling the call that was running. */
  interrupted: 130,
} as const;

/** A usage problem found before anything was sent. */
export class UsageError extends Error {}

/**
 * Read from the error's `code` and HTTP `status` (0: nothing came back), which every error of
 * the client and of cli/api.ts carries, whatever its class.
 */
export function exitCodeOfError(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  const e = err as { code?: unknown; status?: unknown; execution?: unknown } | null;
  if (!e || typeof e.code !== "string" || typeof e.status !== "number") return EXIT.network;
  if (e.code === "invalid_argument") return EXIT.usage;
  if (e.status === 0) return EXIT.network;
  if (e.execution) return EXIT.failed;
  return EXIT.refused;
}

/** An execution's status as an exit code: a finished one that did not succeed is a failure. */
export function exitCodeOfStatus(status: string): number {
  const info = describeStatus(status);
  return info.terminal && status !== "succeeded" ? EXIT.failed : EXIT.ok;
}
