/**
 * The client's errors. Every error it throws is a ToolRuntimeError. A refusal that came over
 * the wire is one of the subclasses in wire-errors.ts (one per error `type` of the runtime's
 * error table, src/errors.ts) and carries the runtime's `code`; a failure on this
 * side of the wire is a LocalError with one of the client's own codes, so a caller can tell
 * "the runtime refused" from "the call never got an answer".
 */
import type { ErrorBody, ErrorCode, ExecutionView } from "../src/contract.ts";

/**
 * Failures that happen on this side of the wire:
 * - `network_error`: the runtime could not be reached, or a stream kept dropping;
 * - `invalid_argument`: the call could not be sent as given (e.g. an API key with a
 *   character that HTTP headers cannot carry); nothing was sent;
 * - `bad_response`: the runtime (or something in front of it) answered with a body that is not
 *   the API's JSON;
 * - `client_timeout`: the call's `timeoutMs` ran out before it ended (ClientTimeoutError). The
 *   runtime may still have done what was asked.
 */
export type LocalErrorCode = "network_error" | "invalid_argument" | "bad_response" | "client_timeout";

export interface LocalErrorBody {
  code: LocalErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

export class ToolRuntimeError extends Error {
  // Names are fields, not new.target.name: a minifying bundler renames classes.
  override name = "ToolRuntimeError";
  readonly code: ErrorCode | LocalErrorCode;
  /** The runtime's error type (`request_error`, `auth_error`…); `local_error` for local codes. */
  readonly type: string;
  /** True when the same call may succeed later; the runtime's word on wire errors. */
  readonly retryable: boolean;
  /** The HTTP status; 0 when no response was received (local errors). */
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** The execution's view, when the call created one (a failed, cancelled or timed-out execution). */
  readonly execution?: ExecutionView;
  /** How long the runtime asked to wait before trying again (`Retry-After` or `details.retry_after_ms`). */
  readonly retryAfterMs?: number;
  constructor(body: ErrorBody | LocalErrorBody, status: number, execution?: ExecutionView, retryAfterMs?: number) {
    super(body.message);
    this.code = body.code;
    this.type = "type" in body ? body.type : "local_error";
    this.retryable = body.retryable;
    this.status = status;
    this.details = body.details;
    this.execution = execution;
    const fromDetails = body.details?.retry_after_ms;
    this.retryAfterMs = retryAfterMs ?? (typeof fromDetails === "number" && fromDetails >= 0 ? fromDetails : undefined);
  }

  /** True when nothing reached the runtime or nothing usable came back. */
  get local(): boolean {
    return this.status === 0 || this.type === "local_error";
  }

  /** `retryAfterMs` in whole seconds, rounded up. */
  get retryAfterSeconds(): number | undefined {
    return this.retryAfterMs === undefined ? undefined : Math.ceil(this.retryAfterMs / 1000);
  }
}

/** A failure on this side of the wire (see LocalErrorCode); `status` is that of a non-JSON answer, else 0. */
export class LocalError extends ToolRuntimeError {
  override name = "LocalError";
  declare readonly code: LocalErrorCode;
  constructor(body: LocalErrorBody, status = 0) {
    super(body, status);
  }
}

/** The call's `timeoutMs` ran out; the runtime may still have done what was asked. */
export class ClientTimeoutError extends LocalError {
  override name = "ClientTimeoutError";
  constructor(timeoutMs: number) {
    super({
      code: "client_timeout",
      message: `no answer within the call's timeoutMs (${timeoutMs} ms)`,
      retryable: true,
      details: { timeout_ms: timeoutMs },
    });
  }
}

export function localError(
  code: LocalErrorCode,
  message: string,
  details?: Record<string, unknown>,
  status = 0,
): LocalError {
  const retryable = code === "network_error" || (code === "bad_response" && status >= 500);
  return new LocalError({ code, message, retryable, ...(details ? { details } : {}) }, status);
}

/**
 * Header values must be ByteStrings, and an API key is ASCII; a pasted placeholder such as
 * `trt_…` would otherwise fail inside `fetch` with a TypeError that reads like a network fault.
 * `what` names the value in the message ("the API key", "the traceparent header").
 */
export function checkHeaderValue(what: string, value: string): void {
  const chars = [...value];
  const bad = chars.findIndex((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) > 0x7e);
  if (bad < 0) return;
  const code = chars[bad].charCodeAt(0);
  const shown =
    code < 0x20 ? `a control character (U+${code.toString(16).padStart(4, "0").toUpperCase()})` : `"${chars[bad]}"`;
  const hint =
    what === "the API key"
      ? " API keys are plain ASCII: was a placeholder such as trt_… pasted instead of the key?"
      : "";
  throw localError(
    "invalid_argument",
    `${what} contains ${shown} at position ${bad + 1}, which an HTTP header cannot carry; nothing was sent.${hint}`,
    { position: bad + 1 },
  );
}
