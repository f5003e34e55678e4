/**
 * Stage 7 (docs/contract.md#delivery), the deciding part: turns what the provider did into a terminal state,
 * checking the output's size and its output schema. Pure; the run records the result.
 */
import type { ExecutionStatus, Value } from "../contract.ts";
import { ERROR_TABLE, errorBody, type ErrorBody, type ErrorCode } from "../errors.ts";
import type { ProviderOutcome } from "./provider-call.ts";
import { checkOutput, type ValidatorTable } from "../pipeline/schema.ts";
import { toJson } from "../codec/bytes.ts";
import type { JsonSchema } from "../../providers/sdk/protocol.ts";

export interface Settlement {
  status: Exclude<ExecutionStatus, "queued" | "scheduled" | "running">;
  output?: unknown;
  error?: ErrorBody;
}

export interface SettleContext {
  output_hash: string;
  idempotent: boolean;
  timeout_ms: number;
  max_output_bytes: number;
  validators?: ValidatorTable;
  /** The output schema itself, for schemas known only at run time (upstream MCP tools). */
  output_schema?: JsonSchema;
}

export function settle(outcome: ProviderOutcome, ctx: SettleContext): Settlement {
  switch (outcome.kind) {
    case "timeout":
      return timedOut(ctx);
    case "stopped":
      return outcome.reason === "timeout"
        ? timedOut(ctx)
        : { status: "cancelled", error: errorBody("cancelled", "the execution was cancelled") };
    case "unbound":
      return failed(ctx, "sandbox_unavailable", outcome.message);
    case "rpc_failed":
      // The platform's text stays in the log (docs/contract.md#errors: the caller gets the kind, not internals).
      console.warn(JSON.stringify({ msg: "provider call failed", code: outcome.failure.code, error: outcome.raw }));
      return failed(ctx, outcome.failure.code, outcome.failure.message);
    case "refused": {
      const r = outcome.refusal;
      const details = { ...r.details, ...(r.tool_code !== undefined ? { tool_code: r.tool_code } : {}) };
      return {
        status: "failed",
        error: errorBody(
          r.code,
          bounded(r.message),
          Object.keys(details).length > 0 ? details : undefined,
          r.retryable === true,
        ),
      };
    }
    case "result":
      break;
  }
  const { result } = outcome;
  if (!result.ok) {
    const e = result.error;
    switch (e.code) {
      case "tool_error": {
        // A `tool_error` with the tool's own code, for callers to branch on (docs/contract.md#errors).
        const details = {
          ...boundedDetails(e.details),
          ...(typeof e.tool_code === "string" ? { tool_code: e.tool_code.slice(0, 64) } : {}),
        };
        return { status: "failed", error: errorBody("tool_error", bounded(e.message), details, e.retryable === true) };
      }
      case "cancelled":
        return { status: "cancelled", error: errorBody("cancelled", e.message) };
      case "tool_not_found":
        return failed(ctx, "tool_not_found", `${e.message} (the registry's view is stale; it refreshes on its own)`);
      default: {
        // A crash carries a reference into the provider's log, never the exception's text.
        const ref = typeof e.details?.ref === "string" ? { ref: e.details.ref.slice(0, 64) } : undefined;
        return {
          status: "failed",
          error: errorBody("provider_crashed", bounded(e.message), ref, retryableFor(ctx, "provider_crashed")),
        };
      }
    }
  }
  // Size first: an oversized output is refused before its schema is walked.
  const bytes = new TextEncoder().encode(toJson(result.output)).byteLength;
  if (bytes > ctx.max_output_bytes) {
    return {
      status: "failed",
      error: errorBody("resource_exceeded", `output is ${bytes} bytes; the limit is ${ctx.max_output_bytes}`, {
        limit: ctx.max_output_bytes,
        observed: bytes,
      }),
    };
  }
  const violations = checkOutput(result.output, ctx.output_hash, ctx.validators, ctx.output_schema);
  if (violations.length > 0) {
    return {
      status: "failed",
      error: errorBody("invalid_output", "the tool's output failed its output schema", {
        violations: violations.slice(0, MAX_VIOLATIONS),
        ...(violations.length > MAX_VIOLATIONS ? { violations_total: violations.length } : {}),
      }),
    };
  }
  return { status: "succeeded", output: result.output };
}

/** What a provider may put in an error is bounded: the record must stay well under a row's size. */
const MAX_MESSAGE = 1_000;
const MAX_DETAILS_BYTES = 8 * 1024;
export const MAX_VIOLATIONS = 50;

function bounded(message: string): string {
  return typeof message === "string" && message.length > MAX_MESSAGE
    ? `${message.slice(0, MAX_MESSAGE)}…`
    : String(message);
}

function boundedDetails(details: Record<string, Value> | undefined): Record<string, Value> | undefined {
  if (!details) return undefined;
  const size = toJson(details).length;
  return size > MAX_DETAILS_BYTES ? { truncated: true, bytes: size } : details;
}

function timedOut(ctx: SettleContext): Settlement {
  return {
    status: "timed_out",
    error: errorBody(
      "timeout",
      `the execution exceeded its timeout of ${ctx.timeout_ms} ms`,
      { timeout_ms: ctx.timeout_ms },
      retryableFor(ctx, "timeout"),
    ),
  };
}

function failed(ctx: SettleContext, code: ErrorCode, message: string): Settlement {
  return { status: "failed", error: errorBody(code, message, undefined, retryableFor(ctx, code)) };
}

/**
 * docs/contract.md#retries: a crash or timeout may have left side effects, so "retryable" is only said of
 * tools that declare themselves idempotent; for the others the caller decides knowingly.
 */
function retryableFor(ctx: SettleContext, code: ErrorCode): boolean {
  const mayHaveRun = code === "timeout" || code === "provider_crashed";
  return ERROR_TABLE[code].retryable && (!mayHaveRun || ctx.idempotent);
}
