/**
 * The one way the HTTP face answers a refusal, whether the execution service returned it or a
 * step before it (credential, body) threw it: the error envelope (docs/contract.md#errors) in the caller's
 * format, with its table status (`respond` adds `Retry-After` to a 429 or 503).
 */
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { respond } from "../codec/negotiate.ts";
import type { ErrorBody } from "../contract.ts";
import { statusOf } from "../errors.ts";
import { countRefusal } from "../audit/refusal-counter.ts";

export function refusalResponse(c: Context<AppEnv>, error: ErrorBody, headers: Record<string, string> = {}): Response {
  if (error.code === "rate_limited") {
    countRefusal(c.env, (p) => c.executionCtx.waitUntil(p), {
      tenant: c.get("caller")?.tenant ?? "",
      tool: String(error.details?.tool ?? ""),
      reason: String(error.details?.reason ?? ""),
    });
  }
  return respond(c.get("format") ?? "json", { error }, statusOf(error.code), headers);
}
