/**
 * The request gate: what the library runs before it reads any byte of the body, and the
 * request-scoped values serveConnect hands to it and to the handlers (the caller, a failed
 * credential, an input refused before parsing).
 */
import { Code, ConnectError, createContextKey, type HandlerContext } from "@connectrpc/connect";
import { authenticate } from "../auth/authenticate.ts";
import type { Caller, ErrorBody } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { refuseDeclaredLength } from "../codec/request-body.ts";
import { loadConfig } from "../config.ts";
import { payloadLimit } from "../policy/limits.ts";
import { chargeRequests } from "../policy/request-rate.ts";
import { refusalError } from "./messages.ts";

/** The methods that are calls: admission charges them, not the gate. */
const CALLS = new Set(["Invoke", "InvokeStream"]);
export const AUTH_FAILURE = createContextKey<RuntimeError | undefined>(undefined, {
  description: "the credential's refusal, when it failed",
});
/** The caller, set by the request gate before the body is read. */
export const CALLER = createContextKey<Caller | undefined>(undefined, { description: "the authenticated caller" });

/**
 * Set by serveConnect when it refused the request's input before the protocol layer parsed it
 * (a JSON body whose `input` is not an object, or one too large to read): the handler answers
 * with this refusal once the caller is known.
 */
export const INPUT_REFUSAL = createContextKey<ErrorBody | undefined>(undefined, {
  description: "the input's refusal, found before parsing",
});

export function callerOf(ctx: HandlerContext): Caller {
  const caller = ctx.values.get(CALLER);
  if (!caller) throw new ConnectError("no caller was established", Code.Internal);
  return caller;
}

/**
 * Runs before the library reads any of the body: the credential (the refusal REST would give),
 * then a declared length over the caller's payload limit.
 */
export async function gate(env: Env, ctx: HandlerContext, waitUntil: (p: Promise<unknown>) => void): Promise<void> {
  try {
    // serveConnect has authenticated a caller whose credential holds; anyone else is refused here.
    // A credential serveConnect saw fail was counted there (src/auth/auth-limiter.ts): its refusal, not a second try.
    const failed = ctx.values.get(AUTH_FAILURE);
    if (failed) throw failed;
    const caller = ctx.values.get(CALLER) ?? (await authenticate(env, { url: ctx.url, headers: ctx.requestHeader }));
    const config = loadConfig(env);
    refuseDeclaredLength(ctx.requestHeader, payloadLimit(config, caller.tenant));
    ctx.values.set(CALLER, caller);
    // One of the tenant's tokens per request; a call's is taken by its admission (src/policy/request-rate.ts).
    if (!CALLS.has(ctx.method.name)) await chargeRequests(env, caller, waitUntil);
  } catch (err) {
    if (err instanceof RuntimeError) throw refusalError(err.toBody());
    throw err;
  }
}
