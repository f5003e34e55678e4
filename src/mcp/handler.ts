/**
 * `/mcp`: the MCP face of the execution service (MCP Streamable HTTP), for protocol 2026-07-28
 * (stateless: one self-describing POST per request) and for 2025-11-25 / 2025-06-18 clients
 * (the `initialize` handshake, then one POST per request) on the same path. The official SDK's
 * `createMcpHandler` does the protocol, but for the hot case (step 6); this file does what the SDK
 * leaves to its host, in order:
 *
 *   1. Origin (DNS-rebinding protection): a present Origin not allowed → 403 (a local
 *      development stack has refused a foreign Host or Origin before this: src/auth/local-only.ts)
 *   2. POST only → 405 with `Allow: POST`
 *   3. the bearer credential, as on /v1 → 401 with the RFC 9728 challenge (resource-server.ts)
 *   4. the body, within MAX_REQUEST_BYTES → 413; read here because some messages need the
 *      face before the SDK: a task listen (listen.ts), a 2025 `notifications/cancelled`,
 *      `initialize` (which gets a session id: below), and the direct lane's requests
 *   5. on `/mcp/{bundle}`, or for a key limited to bundles, the bundles in view from the edge's
 *      registry copy → 404 for a bundle there is none of (or the key does not have)
 *   6. a 2026-07-28 `tools/call` whose `Mcp-Param-*` headers disagree with its arguments, for a
 *      tool whose schema marks them (param-headers.ts) → 400 with JSON-RPC -32020
 *   7. a 2026-07-28 `tools/call` or `tools/list` answered with one plain JSON body: the direct
 *      lane (direct-route.ts says which, direct.ts answers as the SDK would); everything else:
 *      the SDK, with a server built for this caller (server.ts). Either way a call refused as
 *      `forbidden` answers 403 when the answer is still a plain JSON body, and a call refused or
 *      ended with a 429/503 error gets `Retry-After` (src/retry-after.ts)
 *
 * Sessions: the 2025 lane is stateless (but for the log level a session asks for, kept
 * best effort: log-level.ts), yet a 2025 client cancels a call only by sending
 * `notifications/cancelled` with the call's JSON-RPC id on another POST (it keeps the response
 * stream open). So `initialize` answers with an `Mcp-Session-Id` (random; nothing is stored),
 * which the client repeats on every request: a followed call is keyed by (session, id)
 * (call.ts), and the cancel notification finds that execution by the same key from any isolate.
 */
import { localhostAllowedOrigins, originValidationResponse } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { authenticate } from "../auth/authenticate.ts";
import { traceFrom } from "../audit/trace.ts";
import { loadConfig } from "../config.ts";
import { payloadLimit } from "../policy/limits.ts";
import { chargeRequests } from "../policy/request-rate.ts";
import type { Caller } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { readBody } from "../codec/request-body.ts";
import { bundlesInView, type Bundle } from "../registry/bundles.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { jsonRpcCodeOf } from "./errors.ts";
import { isTaskListen, serveTaskListen } from "./listen.ts";
import { insufficientScopeChallenge, MCP_PATH, mcpSettings, unauthorizedChallenge } from "./resource-server.ts";
import { serveDirect } from "./direct.ts";
import { directRoute } from "./direct-route.ts";
import type { McpScope } from "./scope.ts";
import { throughSdk } from "./sdk-lane.ts";
import { cancelSessionCall, isInitialize, isLegacyCancel, isSessionId, newSessionId } from "./legacy-session.ts";
import { paramHeaderMismatch } from "./param-header-check.ts";
import { sessionLogLevel } from "./log-level.ts";

export { MCP_PATH };
/** MCP's HeaderMismatch: a request whose headers and body disagree. */
const HEADER_MISMATCH = -32020;

/** `bundleName`: the request came to `/mcp/{bundle}`, and sees only that bundle's tools (docs/contract.md#bundles). */
export function serveMcp(c: Context<AppEnv>, bundleName?: string): Promise<Response> {
  return answerMcp(c.req.raw, c.env, (p) => c.executionCtx.waitUntil(p), bundleName);
}

/**
 * Which lanes may answer: the direct lane (direct.ts) where it applies, else the SDK. Only tests
 * turn one off: the SDK's alone, to compare the two lanes' answers to the same request; the
 * direct lane's alone, to see that it answered (what it leaves is then a 501).
 */
export interface McpLanes {
  direct: boolean;
  sdk: boolean;
}

export async function answerMcp(
  request: Request,
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  bundleName?: string,
  lanes: McpLanes = { direct: true, sdk: true },
): Promise<Response> {
  const acceptedAt = Date.now();

  const badOrigin = originValidationResponse(request, allowedOrigins(env));
  if (badOrigin) return badOrigin;
  if (request.method !== "POST") return jsonRpcError(405, -32000, "Method not allowed.", undefined, { Allow: "POST" });

  let caller: Caller;
  try {
    caller = await authenticate(env, request);
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    if (err.code === "rate_limited")
      return jsonRpcError(
        429,
        jsonRpcCodeOf(err.code),
        err.message,
        { error: err.toBody() },
        { "Retry-After": retryAfterSeconds(err) },
      );
    return jsonRpcError(
      401,
      jsonRpcCodeOf(err.code),
      err.message,
      { error: err.toBody() },
      { "WWW-Authenticate": unauthorizedChallenge(env, request.url) },
    );
  }

  const config = loadConfig(env);
  const maxBytes = payloadLimit(config, caller.tenant);
  let text: string;
  try {
    text = new TextDecoder().decode(await readBody(request, maxBytes));
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    return jsonRpcError(err.status, -32000, err.message, { error: err.toBody() });
  }
  const body = parseJson(text);
  // One of the tenant's tokens per message; a 2025 client's batch (the SDK takes up to 100
  // entries; 2026-07-28 has none) pays one per entry. A tools/call is charged by its admission,
  // or as a dry run by the service (src/policy/request-rate.ts).
  try {
    await chargeRequests(
      env,
      caller,
      waitUntil,
      (Array.isArray(body) ? body : [body]).filter((m) => !isToolCall(m)).length,
    );
  } catch (err) {
    if (!(err instanceof RuntimeError)) throw err;
    return jsonRpcError(
      err.status,
      jsonRpcCodeOf(err.code),
      err.message,
      { error: err.toBody() },
      { "Retry-After": retryAfterSeconds(err) },
    );
  }
  // After the credential and the charge: an unknown bundle is told only to a caller who counts.
  // The bundles in view: the path's, else a limited key's (docs/contract.md#bundles).
  let bundles: Bundle[] | undefined;
  if (bundleName !== undefined || caller.bundles) {
    const view = bundlesInView(await getSnapshot(env, waitUntil), caller.tenant, bundleName, caller.bundles);
    if (view === null) {
      const err = new RuntimeError("not_found", `no bundle ${bundleName}`, { bundle: bundleName });
      return jsonRpcError(404, jsonRpcCodeOf(err.code), err.message, { error: err.toBody() });
    }
    bundles = view;
  }
  const session = request.headers.get("mcp-session-id");
  const scope: McpScope = {
    env,
    caller,
    acceptedAt,
    trace: traceFrom(request.headers.get("traceparent")),
    waitUntil,
    ...(session && isSessionId(session) ? { sessionId: session } : {}),
    ...(bundles ? { bundles } : {}),
  };

  const mismatch = await paramHeaderMismatch(scope, body, request.headers);
  if (mismatch)
    return jsonRpcError(
      400,
      HEADER_MISMATCH,
      `Bad Request: the request headers and body disagree: ${mismatch.message}`,
      { mismatch: { header: mismatch.header, body: mismatch.message } },
      {},
      (body as { id?: string | number }).id ?? null,
    );

  await sessionLogLevel(scope, body);
  if (isTaskListen(body, request.headers)) return serveTaskListen(scope, body);
  if (scope.sessionId && isLegacyCancel(body)) cancelSessionCall(scope, body.params.requestId);

  const route = lanes.direct ? directRoute(request.headers, body) : undefined;
  const direct = route && (await serveDirect(scope, route, request.signal));
  const response =
    direct && "response" in direct
      ? direct.response
      : lanes.sdk
        ? await throughSdk(
            scope,
            request,
            text,
            body,
            maxBytes,
            direct && "settled" in direct ? direct.settled : undefined,
          )
        : new Response(null, { status: 501 });

  if (
    scope.forbidden &&
    response.status === 200 &&
    (response.headers.get("content-type") ?? "").startsWith("application/json")
  ) {
    // MCP basic/authorization: insufficient rights are a 403; the body stays the JSON-RPC error.
    const headers = new Headers(response.headers);
    if (scope.forbidden.required)
      headers.set(
        "WWW-Authenticate",
        insufficientScopeChallenge(env, request.url, scope.forbidden.required, scope.forbidden.message),
      );
    return new Response(response.body, { status: 403, headers });
  }
  if (scope.retryAfter && (response.headers.get("content-type") ?? "").startsWith("application/json")) {
    // A call refused or ended with a 429/503 error says when to come back, as REST does. (A
    // streamed answer's headers left before the call ended; its error's details say it.)
    const headers = new Headers(response.headers);
    headers.set("Retry-After", scope.retryAfter);
    return new Response(response.body, { status: response.status, headers });
  }
  if (isInitialize(body) && response.status === 200 && !session) {
    const headers = new Headers(response.headers);
    headers.set("Mcp-Session-Id", newSessionId());
    return new Response(response.body, { status: 200, headers });
  }
  return response;
}

const origins = new WeakMap<object, string[]>();

/** The Origins whose pages may call /mcp: localhost's and MCP_ALLOWED_ORIGINS, once per isolate and bindings. */
function allowedOrigins(env: Env): string[] {
  let list = origins.get(env);
  if (!list) {
    list = [...localhostAllowedOrigins(), ...mcpSettings(env).allowedOrigins];
    origins.set(env, list);
  }
  return list;
}

/** A refusal's Retry-After, in whole seconds. */
function retryAfterSeconds(err: RuntimeError): string {
  return String(Math.max(1, Math.ceil(Number(err.details?.retry_after_ms ?? 1_000) / 1000)));
}

function isToolCall(message: unknown): boolean {
  return (message as { method?: unknown } | undefined)?.method === "tools/call";
}

function parseJson(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

function jsonRpcError(
  status: number,
  code: number,
  message: string,
  data?: unknown,
  headers: Record<string, string> = {},
  id: string | number | null = null,
): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code, message, ...(data !== undefined ? { data } : {}) }, id },
    { status, headers },
  );
}
