/** What crosses every boundary: a value or an error as a value. */
import type { ErrorBody } from "./errors.ts";
import type { ExecutionView } from "./execution-view.ts";

/**
 * What crosses every boundary — the execution service to a face, an object to the service,
 * the runtime to a Workers RPC caller: a value, or an error as a value (a thrown Error would
 * lose its code and details over RPC). `execution` is set when the error is an execution's
 * own end (it ran and failed), absent when the call was refused before or instead of one.
 */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: ErrorBody; execution?: ExecutionView };
