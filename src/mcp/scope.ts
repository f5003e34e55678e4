/**
 * What the MCP face knows about one HTTP request, handed to the server the SDK builds for it:
 * the caller (from the bearer credential, as on /v1), the Worker's bindings, and what the
 * handlers report back to the HTTP layer (a refusal that is a 403, a `Retry-After`).
 */
import type { Caller } from "../contract.ts";
import { TRACEPARENT_META_KEY, type LoggingLevel } from "@modelcontextprotocol/server";
import { continuedTrace, type TraceContext } from "../audit/trace.ts";
import type { CallContext } from "../execution/service.ts";
import type { Bundle } from "../registry/bundles.ts";

export interface McpScope {
  env: Env;
  caller: Caller;
  /** When the face accepted the request; the budget counts from here (docs/contract.md#budgets). */
  acceptedAt: number;
  trace: TraceContext;
  waitUntil: (p: Promise<unknown>) => void;
  /** The 2025 lane's session id (minted by this face at `initialize`; see handler.ts). */
  sessionId?: string;
  /** The 2025 lane: the level of log messages this session asked for with `logging/setLevel` (log-level.ts). */
  logLevel?: LoggingLevel;
  /**
   * At `/mcp/{bundle}`, that bundle; for a key limited to bundles, its bundles: the tools of
   * these are all this request may list or call (docs/contract.md#bundles). Absent: every tool.
   */
  bundles?: Bundle[];
  /** Set by `tools/call` when the runtime refused it as `forbidden`: the HTTP answer becomes 403. */
  forbidden?: { required?: string; message: string };
  /** Set by `tools/call` when its refusal or its execution's end is a 429/503 error: the HTTP answer's `Retry-After`. */
  retryAfter?: string;
}

/**
 * The execution service's view of an MCP call: the same identity, face "mcp" (the audit record
 * says so), and the HTTP request's trace unless the message carries its own (`callTrace`).
 */
export function callContext(scope: McpScope, trace: TraceContext = scope.trace): CallContext {
  return {
    env: scope.env,
    caller: scope.caller,
    face: "mcp",
    acceptedAt: scope.acceptedAt,
    trace,
    waitUntil: scope.waitUntil,
  };
}

/**
 * The trace a request continues (docs/contract.md#mcp): its `params._meta.traceparent` (the key
 * MCP reserves in `_meta` for W3C Trace Context), else the HTTP request's `traceparent` header,
 * else a new trace. An invalid value counts as absent, as the header's does on REST.
 * `tracestate` is not kept, on any face.
 */
export function callTrace(scope: McpScope, meta: Record<string, unknown> | undefined): TraceContext {
  return continuedTrace(meta?.[TRACEPARENT_META_KEY]) ?? scope.trace;
}
