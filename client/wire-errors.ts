/**
 * The runtime's refusals, one class per error `type` of its error table
 * (src/errors.ts), so a caller can `catch` by kind instead of matching codes:
 *
 *   auth_error      AuthError       unauthenticated, forbidden
 *   request_error   RequestError    invalid_input (InputValidationError), rate_limited
 *                                   (RateLimitError), invalid_request, idempotency_conflict…
 *   registry_error  RegistryError   tool_not_found, tool_deprecated, no_healthy_provider
 *   execution_error ExecutionError  tool_error, timeout, invalid_output, cancelled… (with `execution`)
 *   runtime_error   RuntimeError    overloaded, internal
 *
 * A type this client does not know (a newer runtime's) is a plain ToolRuntimeError.
 */
import type { ErrorBody, ExecutionView } from "../src/contract.ts";
import { ToolRuntimeError } from "./errors.ts";

/** Missing, wrong, revoked or expired credentials, or a key that may not do this. */
export class AuthError extends ToolRuntimeError {
  override name = "AuthError";
}

/** The request itself was refused (its shape, its size, its rate, its idempotency key). */
export class RequestError extends ToolRuntimeError {
  override name = "RequestError";
}

/** `invalid_input`: the input does not match the tool's schema; `details.violations` says where. */
export class InputValidationError extends RequestError {
  override name = "InputValidationError";
}

/** `rate_limited`: over the tenant's or the tool's limit; nothing ran. See `retryAfterMs`. */
export class RateLimitError extends RequestError {
  override name = "RateLimitError";
}

/** The tool is unknown, past its sunset, or no provider of it can serve now. */
export class RegistryError extends ToolRuntimeError {
  override name = "RegistryError";
}

/** The execution ran (or was to run) and ended badly; `execution` holds its view when there is one. */
export class ExecutionError extends ToolRuntimeError {
  override name = "ExecutionError";
}

/** The runtime itself could not serve (overloaded, internal failure); usually retryable. */
export class RuntimeError extends ToolRuntimeError {
  override name = "RuntimeError";
}

/** The class for an error envelope: by code where a code has its own class, else by type. */
export function wireError(
  body: ErrorBody,
  status: number,
  execution?: ExecutionView,
  retryAfterMs?: number,
): ToolRuntimeError {
  if (body.code === "invalid_input") return new InputValidationError(body, status, execution, retryAfterMs);
  if (body.code === "rate_limited") return new RateLimitError(body, status, execution, retryAfterMs);
  switch (body.type) {
    case "auth_error":
      return new AuthError(body, status, execution, retryAfterMs);
    case "request_error":
      return new RequestError(body, status, execution, retryAfterMs);
    case "registry_error":
      return new RegistryError(body, status, execution, retryAfterMs);
    case "execution_error":
      return new ExecutionError(body, status, execution, retryAfterMs);
    case "runtime_error":
      return new RuntimeError(body, status, execution, retryAfterMs);
    default:
      return new ToolRuntimeError(body, status, execution, retryAfterMs);
  }
}
