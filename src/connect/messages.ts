/**
 * Between the runtime's shapes and the Connect messages of runtime.proto: an InvokeRequest as
 * the envelope the execution service takes, a view as an Execution message, a refusal as the
 * Connect error whose metadata carries the error code (docs/contract.md#errors).
 */
import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { ErrorBody, ExecutionView, Outcome } from "../contract.ts";
import { ERROR_TABLE, isErrorCode, statusOf } from "../errors.ts";
import { retryAfterHeaders } from "../retry-after.ts";
import { ExecutionSchema, type InvokeRequest } from "../gen/tool_runtime/v1/runtime_pb.ts";
import { fromJson as parseStoredJson, toJson as storedJson } from "../codec/bytes.ts";

/** Error codes → Connect codes, by HTTP status as the Connect protocol maps them. */
function connectCode(code: string): Code {
  switch (isErrorCode(code) ? ERROR_TABLE[code].status : 500) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 409:
      return Code.AlreadyExists;
    case 410:
      return Code.FailedPrecondition;
    case 413:
      return Code.ResourceExhausted;
    case 429:
      return Code.ResourceExhausted;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.DeadlineExceeded;
    default:
      return Code.Internal;
  }
}

/**
 * A refusal as a Connect error: the error code, retryable flag and details ride in metadata,
 * and a 429/503 refusal's `Retry-After` too (an HTTP header of a Connect unary answer, a
 * trailer of a gRPC-Web one).
 */
export function refusalError(error: ErrorBody): ConnectError {
  const meta = new Headers({
    "trt-error-code": error.code,
    "trt-retryable": String(error.retryable),
    ...retryAfterHeaders(statusOf(error.code), { error }),
  });
  if (error.details) meta.set("trt-error-details", JSON.stringify(error.details));
  return new ConnectError(error.message, connectCode(error.code), meta);
}

/**
 * An execution that ended with a 429/503 error is still an Execution message (HTTP 200), but it
 * asks the caller to come back later just as REST's 503 does: the answer says when, in
 * `Retry-After`.
 */
export function finishedMessage(view: ExecutionView, ctx: HandlerContext) {
  const retryAfter = view.error ? retryAfterHeaders(statusOf(view.error.code), view)["Retry-After"] : undefined;
  if (retryAfter) ctx.responseHeader.set("Retry-After", retryAfter);
  return executionMessage(view);
}

/** The value of an outcome, or its refusal thrown as the Connect error the library sends. */
export function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw refusalError(outcome.error);
  return outcome.value;
}

export const value = (v: unknown) =>
  v === undefined ? undefined : fromJson(ValueSchema, parseStoredJson(storedJson(v)) as JsonValue);
export const object = (v: unknown) => (v === undefined ? undefined : (parseStoredJson(storedJson(v)) as JsonObject));

export function executionMessage(view: ExecutionView) {
  return create(ExecutionSchema, {
    executionId: view.execution_id,
    tool: view.tool,
    version: view.version,
    status: view.status,
    output: value(view.output),
    partialOutput: value(view.partial_output),
    error: view.error
      ? {
          code: view.error.code,
          message: view.error.message,
          type: view.error.type,
          retryable: view.error.retryable,
          details: object(view.error.details),
        }
      : undefined,
    execution: object(view.execution),
    position: view.position,
    approval: object(view.approval),
  });
}

/** A call as the envelope the execution service takes (docs/contract.md#request), as REST would send it. */
export function envelope(
  req: InvokeRequest,
  input: JsonObject,
  mode: "sync" | "async",
  stream = false,
): Record<string, unknown> {
  return {
    tool: req.tool,
    input,
    mode,
    ...(stream ? { stream: true } : {}),
    ...(req.version ? { version: req.version } : {}),
    ...(req.provider ? { provider: req.provider } : {}),
    ...(req.context ? { context: req.context } : {}),
    ...(req.idempotencyKey ? { idempotency_key: req.idempotencyKey } : {}),
    ...(req.limits && (req.limits.timeoutMs || req.limits.maxOutputBytes)
      ? {
          limits: {
            ...(req.limits.timeoutMs ? { timeout_ms: req.limits.timeoutMs } : {}),
            ...(req.limits.maxOutputBytes ? { max_output_bytes: req.limits.maxOutputBytes } : {}),
          },
        }
      : {}),
  };
}
