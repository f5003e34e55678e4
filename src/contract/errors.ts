/** The error shapes every face answers with (docs/contract.md#errors); src/errors.ts maps each code to its HTTP status. */
import type { Value } from "../../providers/sdk/protocol.ts";

/** Error types (docs/contract.md#errors). */
export type ErrorType = "request_error" | "auth_error" | "registry_error" | "execution_error" | "runtime_error";

/**
 * Every error code a caller can see: the first ten, then the cases they do not cover, named
 * in the same style. src/errors.ts gives each its HTTP status, type and default `retryable`.
 */
export const ERROR_CODES = [
  "unauthenticated",
  "forbidden",
  "tool_not_found",
  "invalid_input",
  "invalid_output",
  "timeout",
  "resource_exceeded",
  "sandbox_unavailable",
  "tool_error",
  "rate_limited",
  "invalid_request",
  "payload_too_large",
  "tool_deprecated",
  "provider_crashed",
  "no_healthy_provider",
  "idempotency_conflict",
  "cancelled",
  "execution_not_found",
  "not_found",
  "not_acceptable",
  "unsupported_media_type",
  "method_not_allowed",
  "overloaded",
  "internal",
  "approval_rejected",
  "approval_expired",
  "approval_not_pending",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The body of every error response: `{ error: ErrorBody }` (docs/contract.md#errors). */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  type: ErrorType;
  retryable: boolean;
  details?: Record<string, Value>;
}

/** A schema violation, with a JSON Pointer into the value (docs/contract.md#validation). */
export interface Violation {
  /** JSON Pointer into the input ("" is the whole input). */
  path: string;
  message: string;
  keyword: string;
}
