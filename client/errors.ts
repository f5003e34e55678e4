/**
 * The client's one error type. A wire error carries the runtime's TRT-002 §10 code; a local
 * error carries one of the client's own codes, so a caller can tell "the runtime refused"
 * from "the call never left this process" (STYLE.md: local errors apart from wire errors).
 */
import type { ExecutionView } from "../src/contract.ts";
import type { ErrorBody, ErrorCode } from "../src/contract.ts";

/**
 * Failures that happen on this side of the wire:
 * - `network_error`: the runtime could not be reached, or a stream kept dropping;
 * - `invalid_argument`: the call could not be sent as given (e.g. an API key with a
 *   character that HTTP headers cannot carry); nothing was sent;
 * - `bad_response`: the runtime (or something in front of it) answered with a body that is not
 *   the API's JSON.
 */
export type LocalErrorCode = "network_error" | "invalid_argument" | "bad_response";

export interface LocalErrorBody {
  code: LocalErrorCode;
  message: string;
  retryable: boolean;
  details?: Record<string, unknown>;
}

export class ToolRuntimeError extends Error {
  readonly code: ErrorCode | LocalErrorCode;
  /** The TRT-002 error type (`request_error`, `auth_error`…); `local_error` for local codes. */
  readonly type: string;
  readonly retryable: boolean;
  /** The HTTP status; 0 when no response was received (local errors). */
  readonly status: number;
  readonly details?: Record<string, unknown>;
  /** The execution's view, when the call created one (a failed, cancelled or timed-out execution). */
  readonly execution?: ExecutionView;
  /** Seconds the runtime asked to wait before retrying (`Retry-After`), when it said. */
  readonly retryAfterSeconds?: number;
  constructor(body: ErrorBody | LocalErrorBody, status: number, execution?: ExecutionView, retryAfterSeconds?: number) {
    super(body.message);
    this.name = "ToolRuntimeError";
    this.code = body.code;
    this.type = "type" in body ? body.type : "local_error";
    this.retryable = body.retryable;
    this.status = status;
    this.details = body.details;
    this.execution = execution;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** True when nothing reached the runtime or nothing usable came back. */
  get local(): boolean {
    return this.status === 0;
  }
}

export function localError(code: LocalErrorCode, message: string, details?: Record<string, unknown>): ToolRuntimeError {
  return new ToolRuntimeError({ code, message, retryable: code === "network_error", ...(details ? { details } : {}) }, 0);
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
  const shown = code < 0x20 ? `a control character (U+${code.toString(16).padStart(4, "0").toUpperCase()})` : `"${chars[bad]}"`;
  const hint = what === "the API key" ? " API keys are plain ASCII: was a placeholder such as trt_… pasted instead of the key?" : "";
  throw localError("invalid_argument", `${what} contains ${shown} at position ${bad + 1}, which an HTTP header cannot carry; nothing was sent.${hint}`, { position: bad + 1 });
}
