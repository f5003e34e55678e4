/**
 * The one error model (docs/contract.md#errors). Every failure a caller can see is a RuntimeError with a
 * code from ERROR_TABLE; the table alone decides its HTTP status, type and default
 * `retryable`. The first ten codes are the API's original ones; those below cover
 * cases they do not, named in the same style.
 */

import type { ErrorBody, ErrorCode, ErrorType, Value } from "./contract.ts";
import { withRetryAfter } from "./retry-after.ts";

export type { ErrorBody, ErrorCode, ErrorType };

interface ErrorRule {
  status: number;
  type: ErrorType;
  retryable: boolean;
  meaning: string;
}

export const ERROR_TABLE = {
  // The original ten.
  unauthenticated: { status: 401, type: "auth_error", retryable: false, meaning: "Missing or invalid credentials" },
  forbidden: {
    status: 403,
    type: "auth_error",
    retryable: false,
    meaning: "Permission or policy denied (capability levels 1-3, a role, a policy)",
  },
  tool_not_found: { status: 404, type: "registry_error", retryable: false, meaning: "Unknown tool or version" },
  invalid_input: { status: 400, type: "request_error", retryable: false, meaning: "Input failed schema validation" },
  invalid_output: {
    status: 502,
    type: "execution_error",
    retryable: false,
    meaning: "Tool produced schema-invalid output",
  },
  timeout: {
    status: 504,
    type: "execution_error",
    retryable: true,
    meaning:
      "Exceeded execution timeout (retryable only for tools declared idempotent: a timed-out call may still have run)",
  },
  resource_exceeded: { status: 400, type: "execution_error", retryable: false, meaning: "Hit a resource limit" },
  sandbox_unavailable: {
    status: 503,
    type: "execution_error",
    retryable: true,
    meaning: "Could not reach the provider",
  },
  tool_error: {
    status: 422,
    type: "execution_error",
    retryable: false,
    meaning: "Tool ran but returned an error (retryable as the tool says)",
  },
  rate_limited: { status: 429, type: "request_error", retryable: true, meaning: "Tenant or tool rate limit hit" },
  // The cases the original ten do not cover
  invalid_request: {
    status: 400,
    type: "request_error",
    retryable: false,
    meaning: "Malformed body or envelope (not the tool's input)",
  },
  payload_too_large: {
    status: 413,
    type: "request_error",
    retryable: false,
    meaning: "Request body over the configured maximum",
  },
  tool_deprecated: { status: 410, type: "registry_error", retryable: false, meaning: "Tool version past its sunset" },
  provider_crashed: {
    status: 502,
    type: "execution_error",
    retryable: true,
    meaning:
      "Provider failed while handling the call (retryable only for tools declared idempotent: it may have had its effect)",
  },
  no_healthy_provider: {
    status: 503,
    type: "registry_error",
    retryable: true,
    meaning: "Every provider of the tool is down or degraded",
  },
  idempotency_conflict: {
    status: 409,
    type: "request_error",
    retryable: false,
    meaning: "The idempotency key was used with a different request",
  },
  cancelled: { status: 409, type: "execution_error", retryable: false, meaning: "The execution was cancelled" },
  execution_not_found: {
    status: 404,
    type: "request_error",
    retryable: false,
    meaning: "Unknown, expired or foreign execution id",
  },
  not_found: { status: 404, type: "request_error", retryable: false, meaning: "No such route" },
  not_acceptable: {
    status: 406,
    type: "request_error",
    retryable: false,
    meaning: "No format in Accept that the runtime answers (JSON or MessagePack)",
  },
  unsupported_media_type: {
    status: 415,
    type: "request_error",
    retryable: false,
    meaning: "Body in a format the runtime does not read (JSON or MessagePack)",
  },
  method_not_allowed: {
    status: 405,
    type: "request_error",
    retryable: false,
    meaning: "Route exists, method does not",
  },
  overloaded: {
    status: 503,
    type: "runtime_error",
    retryable: true,
    meaning:
      "The runtime could not dispatch the call within its budget (its own queues, admission); try again after Retry-After. Never the provider's fault",
  },
  internal: { status: 500, type: "runtime_error", retryable: true, meaning: "Unexpected failure inside the runtime" },
  // Executions that wait for a person (docs/contract.md#approvals)
  approval_rejected: {
    status: 403,
    type: "execution_error",
    retryable: false,
    meaning: "A person with the approver role rejected the call before it ran (details: approver, reason)",
  },
  approval_expired: {
    status: 504,
    type: "execution_error",
    retryable: true,
    meaning: "Nobody approved the call within its approval window; it never ran",
  },
  approval_not_pending: {
    status: 409,
    type: "request_error",
    retryable: false,
    meaning: "The execution is not awaiting approval (decided already, never needed it, or finished); nothing changed",
  },
} as const satisfies Record<ErrorCode, ErrorRule>;

export class RuntimeError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, Value>;
  readonly retryable: boolean;
  constructor(code: ErrorCode, message: string, details?: Record<string, Value>, retryable?: boolean) {
    super(message);
    this.name = "RuntimeError";
    this.code = code;
    this.details = details;
    this.retryable = retryable ?? ERROR_TABLE[code].retryable;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }

  toBody(): ErrorBody {
    return errorBody(this.code, this.message, this.details, this.retryable);
  }
}

export function errorBody(
  code: ErrorCode,
  message: string,
  given?: Record<string, Value>,
  retryable?: boolean,
): ErrorBody {
  const rule = ERROR_TABLE[code];
  // A 429 or 503 always says when to try again, so a face without headers (RPC) can tell too.
  const details = withRetryAfter(rule.status, given);
  return {
    code,
    message,
    type: rule.type,
    retryable: retryable ?? rule.retryable,
    ...(details && Object.keys(details).length > 0 ? { details } : {}),
  };
}

/** The HTTP status of a code; a code this table does not know (a newer runtime's) is a 500. */
export function statusOf(code: string): number {
  return isErrorCode(code) ? ERROR_TABLE[code].status : 500;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === "string" && Object.hasOwn(ERROR_TABLE, value);
}
