/**
 * What an upstream's failure means, in the terms stage 7 and provider health already use
 * (docs/architecture.md, "Upstream MCP servers are providers behind an adapter"), so that an
 * upstream is judged exactly like a native provider, and only by its own faults:
 *
 *   with the runtime's credential (or none):
 *   unreachable, refused by the egress guard, no MCP endpoint there, 408/429/502/503/504, or
 *     our own credential refused                      → sandbox_unavailable (liveness moves)
 *   an answer that is not MCP, a JSON-RPC error, 500  → provider_crashed (a breaker sample)
 *   with the tenant's own token, any non-2xx answer   → refused, the tenant's failure:
 *     401/403 → tool_error `upstream_credential_refused`, others → tool_error `upstream_refused`
 *     (no health sample: one tenant's bad token must not take the upstream away from others)
 *   on every path:
 *   an answer past the size limit                     → resource_exceeded (a breaker sample)
 *   JSON-RPC -32602 (invalid params)                  → refused as invalid_input (the caller's)
 *   `isError: true`                                   → tool_error, with the tool's text
 *   the upstream does not know the tool               → tool_not_found (the registry is stale)
 *
 * Failures that are the provider's are thrown as UpstreamFailure, refusals as UpstreamRefusal
 * (src/upstreams/upstream-failure.ts, apart so that what runs before a call can throw them without
 * loading the MCP client); each carries its classification to stage 7 in this isolate
 * (src/execution/provider-failure.ts). Messages name the kind of failure, never an upstream's
 * text or a header.
 *
 * The errors are the upstream client's (src/upstreams/mcp-wire.ts), recognised by their shape
 * rather than their class, so that the MCP SDK's errors of the same kind (an HTTP status, a
 * JSON-RPC code, a transport fault code) mean the same: tests and tools drive upstreams with
 * the SDK's client, and a failure must not change meaning with the client that met it.
 */
import type { InvokeResult } from "../../providers/sdk/protocol.ts";
import type { RpcFailure } from "../execution/provider-failure.ts";
import { ResponseTooLarge } from "./client.ts";
import { JsonRpcError } from "./mcp-wire.ts";
import { EgressRefused } from "./egress.ts";
import { CREDENTIAL_REFUSED, TENANT_CALL_REFUSED, UpstreamFailure, UpstreamRefusal } from "./upstream-failure.ts";
import type { CallerRefusal } from "../execution/provider-failure.ts";

// Re-exported for the modules that classify (this one is loaded with the upstream client, lazily).
export { CREDENTIAL_REFUSED, TENANT_CALL_REFUSED, UpstreamFailure, UpstreamRefusal };

const unavailable = (message: string): RpcFailure => ({ code: "sandbox_unavailable", message, transport: true });
const crashed = (message: string): RpcFailure => ({ code: "provider_crashed", message, transport: true });

export interface FailureContext {
  /** Whose credential the exchange carried. */
  credential: "tenant" | "runtime" | "none";
  tooLarge: boolean;
}

/**
 * An answer to give (the tool's own), a refusal (the caller's fault: no health sample), or a
 * classified provider failure.
 */
export type Classified =
  | { kind: "answer"; result: Extract<InvokeResult, { ok: false }>["error"] }
  | { kind: "refused"; refusal: CallerRefusal }
  | { kind: "failure"; failure: RpcFailure };

/** Answers the upstream may give again soon: a caller may try once more. */
const TRANSIENT = [408, 429, 502, 503, 504];

export function classifyUpstreamError(err: unknown, ctx: FailureContext): Classified {
  const chain = causes(err);
  if (ctx.tooLarge || chain.some((e) => e instanceof ResponseTooLarge)) {
    return {
      kind: "failure",
      failure: {
        code: "resource_exceeded",
        message: "the upstream's answer exceeded the runtime's size limit",
        transport: false,
      },
    };
  }
  const egress = chain.find((e): e is EgressRefused => e instanceof EgressRefused);
  if (egress) return { kind: "failure", failure: unavailable(egress.message) };
  const status = chain.map(statusOf).find((s) => s !== undefined);
  if (status !== undefined) return byStatus(status, ctx);
  const protocol = chain.find(isJsonRpcError);
  if (protocol) {
    if (protocol.code === -32602 && /not found|unknown tool|no such tool/i.test(protocol.message)) {
      return {
        kind: "answer",
        result: { code: "tool_not_found", message: "the upstream does not offer this tool any more" },
      };
    }
    if (protocol.code === -32602) {
      // Invalid params: the arguments passed the approved schema but not the upstream's own
      // checks. The caller's to fix, on every credential path.
      return {
        kind: "refused",
        refusal: {
          code: "invalid_input",
          message: "the upstream refused the tool's arguments as invalid (JSON-RPC -32602)",
          details: { upstream_code: -32602 },
        },
      };
    }
    return { kind: "failure", failure: crashed(`the upstream answered with JSON-RPC error ${protocol.code}`) };
  }
  if (chain.some(isUnreached) && !chain.some(isParseError)) {
    return { kind: "failure", failure: unavailable("the upstream could not be reached") };
  }
  if (chain.some(isNetworkError)) return { kind: "failure", failure: unavailable("the upstream could not be reached") };
  return { kind: "failure", failure: crashed("the upstream's answer is not valid MCP") };
}

function byStatus(status: number, ctx: FailureContext): Classified {
  if (ctx.credential === "tenant") return tenantRefused(status);
  if (status === 401 || status === 403) {
    return { kind: "failure", failure: unavailable(`the upstream refused the runtime's credential (HTTP ${status})`) };
  }
  if ([404, 405, 406, 415].includes(status))
    return {
      kind: "failure",
      failure: unavailable(`no MCP endpoint answers at the upstream's address (HTTP ${status})`),
    };
  if (TRANSIENT.includes(status))
    return { kind: "failure", failure: unavailable(`the upstream is unavailable (HTTP ${status})`) };
  if (status === 413)
    return {
      kind: "answer",
      result: {
        code: "tool_error",
        tool_code: "upstream_payload_too_large",
        message: "the upstream refused the input as too large (HTTP 413)",
      },
    };
  if (status >= 300 && status < 400)
    return {
      kind: "failure",
      failure: unavailable(
        `the upstream redirected elsewhere; the runtime follows redirects only within its origin (HTTP ${status})`,
      ),
    };
  return { kind: "failure", failure: crashed(`the upstream failed the request (HTTP ${status})`) };
}

/**
 * With the tenant's own token the upstream's answer is about that token (its scopes, its
 * quota, its account), so it is the tenant's failure whatever the status: counted against the
 * upstream, one tenant's bad token would mark it dead or open its breaker for everyone.
 */
function tenantRefused(status: number): Classified {
  if (status === 401 || status === 403) {
    return {
      kind: "refused",
      refusal: {
        code: "tool_error",
        tool_code: CREDENTIAL_REFUSED,
        message: "the upstream refused the token your tenant stored for it; store a valid one",
        details: { http_status: status },
      },
    };
  }
  return {
    kind: "refused",
    refusal: {
      code: "tool_error",
      tool_code: TENANT_CALL_REFUSED,
      message: `the upstream refused the call made with your tenant's token (HTTP ${status})`,
      retryable: TRANSIENT.includes(status),
      details: { http_status: status },
    },
  };
}

/** The HTTP status an error reports (the client's UpstreamHttpError, the SDK's SdkHttpError), or none; an SDK UnauthorizedError is a 401. */
function statusOf(err: unknown): number | undefined {
  if (!(err instanceof Error)) return undefined;
  if (err.name === "UnauthorizedError") return 401;
  if (!/HttpError$/.test(err.name)) return undefined;
  const s =
    (err as { status?: unknown; data?: { status?: unknown } }).status ??
    (err as { data?: { status?: unknown } }).data?.status;
  return typeof s === "number" ? s : undefined;
}

/** A JSON-RPC error answer: the client's JsonRpcError, or the SDK's ProtocolError (and its subclasses). */
function isJsonRpcError(e: unknown): e is Error & { code: number } {
  return (
    e instanceof Error &&
    typeof (e as { code?: unknown }).code === "number" &&
    (e instanceof JsonRpcError || e.name === "ProtocolError")
  );
}

/** A transport fault that means nothing answered: the request was not sent, or its connection closed. */
function isUnreached(e: unknown): boolean {
  const code = e instanceof Error ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" && ["CONNECTION_CLOSED", "SEND_FAILED", "ERA_NEGOTIATION_FAILED"].includes(code);
}

/** The error and every `cause` under it (bounded: a cycle must not hang a call). */
function causes(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e = err, i = 0; e !== undefined && e !== null && i < 8; e = (e as { cause?: unknown }).cause, i++)
    out.push(e);
  return out;
}

function isParseError(e: unknown): boolean {
  return (
    e instanceof SyntaxError ||
    (e instanceof Error && /JSON|parse|schema|invalid/i.test(e.message) && !isNetworkError(e))
  );
}

/** What `fetch` (or a service binding) throws when nothing answers. */
function isNetworkError(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  return /fetch failed|network|connect|ECONNREFUSED|ECONNRESET|socket|Worker "[^"]*" not found|couldn't find|no such service|disconnected|connection (?:was )?(?:reset|refused|lost)/i.test(
    e.message,
  );
}
