/**
 * The one way the HTTP face answers a refusal, whether the execution service returned it or a
 * step before it (credential, body) threw it: the error envelope (TRT-002 §10) in the caller's
 * format, with its table status, and `Retry-After` when the refusal says when to try again.
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { respond } from "../codec/negotiate.ts";
import type { ErrorBody } from "../contract.ts";
import { statusOf } from "../errors.ts";
import { countRefusal } from "../audit/refusal-counter.ts";

export function refusalResponse(c: Context<AppEnv>, error: ErrorBody, headers: Record<string, string> = {}): Response {
  const retryAfterMs = error.details?.retry_after_ms;
  const out = { ...headers };
  // Retryable refusals say when (429, 503): in the body and as Retry-After (whole seconds).
  if (typeof retryAfterMs === "number") out["Retry-After"] = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  if (error.code === "rate_limited") {
    countRefusal(c.env, (p) => c.executionCtx.waitUntil(p), { tenant: c.get("caller")?.tenant ?? "", tool: String(error.details?.tool ?? ""), reason: String(error.details?.reason ?? "") });
  }
  return respond(c.get("format") ?? "json", { error }, statusOf(error.code), out);
}
