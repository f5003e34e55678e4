/**
 * What a rejected service-binding RPC to a provider means (docs/contract.md#errors, docs/contract.md#circuit-breakers): the
 * provider's `invoke` promise rejected instead of answering an InvokeResult. Pure: it reads
 * only the error's message and the properties workerd sets on it.
 *
 * What the caller of a Workers RPC sees, and where that is known from:
 * - The callee's own code threw: the same error class and message, with `remote: true`
 *   (workerd sets it server-side on tunneled `jsg.` exceptions only: cloudflare/workerd#2271).
 *   Seen here under wrangler dev: `TypeError: Cannot read properties of undefined`, remote.
 * - The callee exceeded its CPU limit: Cloudflare's runtime logs
 *   "Worker exceeded CPU time limit." with outcome `exceededCpu` (Workers docs, "Limits",
 *   Error 1102; public `wrangler tail` captures); a Durable Object callee gives "Durable
 *   Object exceeded its CPU time limit and was reset." Platform exceptions reach JavaScript
 *   through workerd's tunneling (jsg/exception.c++ in github.com/cloudflare/workerd): a "broken.exceededCpu;
 *   jsg.Error: …" description becomes an Error with that message and `durableObjectReset: true`
 *   (any "broken." prefix sets it), plus `remote: true` when tunneled from another Worker.
 *   The text is produced by the production runtime only: the open-source workerd has no CPU
 *   limit enforcer (its NullLimitEnforcer) and its binary does not contain the string, so
 *   `[limits] cpu_ms` is not enforced under wrangler dev (tried: a 3 s busy loop under
 *   `cpu_ms = 50` answered normally). Matching is therefore on the message, both spellings.
 * - Memory: "Worker exceeded memory limit." / "Worker has exceeded memory limit." /
 *   "Durable Object's isolate exceeded its memory limit …".
 * - A callee that can never answer: "The Workers runtime canceled this request because it
 *   detected that your Worker's code had hung …" (seen here, no `remote`).
 * - wrangler dev, provider Worker not running: `Worker "x" not found. Make sure it is running
 *   locally.` (seen here, with `remote: true`: it comes from the dev registry's proxy).
 * - A Worker bound that has no `invoke`: `TypeError: The RPC receiver does not implement the
 *   method "invoke".` (seen here, `remote: true`).
 * - Platform overload sets `overloaded: true` (Durable Objects error-handling docs).
 */
import type { ErrorCode } from "../errors.ts";

export interface RpcFailure {
  code: Extract<ErrorCode, "resource_exceeded" | "provider_crashed" | "sandbox_unavailable">;
  /** For the caller: names the kind of failure, never the provider's exception text. */
  message: string;
  /**
   * True when the platform raised it (binding, RPC layer, isolate limits), false when the
   * provider's own code threw. Liveness should only move on `sandbox_unavailable`; a
   * resource_exceeded or a crash is one failed call (a breaker sample), not a dead provider.
   */
  transport: boolean;
}

/**
 * A call the provider turned down for the caller's own reason: arguments the provider calls
 * invalid, or a credential of the caller's tenant that the provider refused. It fails the call
 * with `code` and says nothing about the provider's health (docs/architecture.md, "Only the
 * provider's faults count"). Only an upstream MCP server's adapter, which runs in this
 * isolate, raises one (src/upstreams/upstream-failure.ts); a provider Worker answers
 * `tool_error` instead.
 */
export interface CallerRefusal {
  code: Extract<ErrorCode, "invalid_input" | "tool_error">;
  message: string;
  /** With `tool_error`: the tool code callers branch on. */
  tool_code?: string;
  retryable?: boolean;
  details?: Record<string, string | number | boolean>;
}

/** The refusal an in-isolate adapter threw (by class name: the error arrives whole, not across RPC), or undefined. */
export function callerRefusalOf(err: unknown): CallerRefusal | undefined {
  if (!(err instanceof Error) || err.name !== "UpstreamRefusal") return undefined;
  const r = (err as { refusal?: Partial<CallerRefusal> }).refusal;
  if (!r || (r.code !== "invalid_input" && r.code !== "tool_error") || typeof r.message !== "string") return undefined;
  return { ...r, code: r.code, message: r.message };
}

interface Rule {
  test: RegExp;
  failure: RpcFailure;
}

// First match wins; the texts are the platform's, matched loosely (case, trailing period).
const RULES: Rule[] = [
  {
    test: /exceeded (?:its )?CPU time limit|CPU time limit exceeded|exceeded CPU limit/i,
    failure: {
      code: "resource_exceeded",
      message: "the provider exceeded its CPU time limit on this call",
      transport: true,
    },
  },
  {
    test: /exceeded (?:its )?memory limit|memory limit exceeded/i,
    failure: {
      code: "resource_exceeded",
      message: "the provider exceeded its memory limit on this call",
      transport: true,
    },
  },
  {
    test: /Worker "[^"]*" not found|couldn't find a local dev session|service binding .* not found|no such service/i,
    failure: { code: "sandbox_unavailable", message: "the provider's Worker could not be reached", transport: true },
  },
  {
    test: /RPC receiver does not implement the method/i,
    failure: {
      code: "sandbox_unavailable",
      message: "the Worker bound as this provider does not serve tool calls",
      transport: true,
    },
  },
  {
    test: /had hung and would never generate a response/i,
    failure: {
      code: "provider_crashed",
      message: "the provider's Worker hung and the platform stopped the call",
      transport: true,
    },
  },
  {
    test: /network connection lost|connection (?:was )?reset|disconnected/i,
    failure: {
      code: "provider_crashed",
      message: "the connection to the provider was lost during the call",
      transport: true,
    },
  },
];

const OVERLOADED: RpcFailure = {
  code: "sandbox_unavailable",
  message: "the provider's Worker is overloaded",
  transport: true,
};
const THREW: RpcFailure = {
  code: "provider_crashed",
  message: "the provider's Worker failed before answering",
  transport: false,
};
const UNKNOWN: RpcFailure = { code: "provider_crashed", message: "the call to the provider failed", transport: true };

/** Classifies the rejection of `provider.invoke(call, sink)`; never throws. */
export function classifyRpcFailure(err: unknown): RpcFailure {
  // Classified where it was raised: the upstream MCP adapter (src/upstreams/failures.ts), which
  // runs in this isolate, so its error arrives whole rather than across RPC.
  const own = preclassified(err);
  if (own) return own;
  const message = messageOf(err);
  const rule = RULES.find((r) => r.test.test(message));
  if (rule) return { ...rule.failure };
  if (flag(err, "overloaded")) return { ...OVERLOADED };
  if (flag(err, "remote")) return { ...THREW };
  return { ...UNKNOWN };
}

const CODES: readonly string[] = ["resource_exceeded", "provider_crashed", "sandbox_unavailable"];

function preclassified(err: unknown): RpcFailure | undefined {
  if (!(err instanceof Error) || err.name !== "UpstreamFailure") return undefined;
  const f = (err as { failure?: Partial<RpcFailure> }).failure;
  if (!f || !CODES.includes(f.code as string) || typeof f.message !== "string") return undefined;
  return { code: f.code as RpcFailure["code"], message: f.message, transport: f.transport === true };
}

function messageOf(err: unknown): string {
  try {
    if (err instanceof Error) return err.message;
    if (typeof err === "object" && err !== null && typeof (err as { message?: unknown }).message === "string") {
      return (err as { message: string }).message;
    }
    return String(err);
  } catch {
    return ""; // a value whose toString throws tells us nothing more
  }
}

function flag(err: unknown, name: "remote" | "overloaded"): boolean {
  return typeof err === "object" && err !== null && (err as Record<string, unknown>)[name] === true;
}
