/**
 * The direct lane of `/mcp`: a 2026-07-28 `tools/call` or `tools/list` that direct-route.ts takes
 * is answered here, without the SDK's per-request server and transport (the face's own CPU on
 * the hot path: docs/architecture.md#the-mcp-face). It runs the same code as the SDK lane
 * (call.ts, tools.ts, discovery.ts) and writes the answer as the SDK writes it for this case,
 * its 2026-07-28 encoding:
 *
 *   result   200 `{"result": R, "jsonrpc": "2.0", "id": id}`, R being
 *              tools/call  the result as the SDK's result schema parses it (`_meta`, `content`,
 *                          `structuredContent`, `isError`, in that order), then
 *                          `resultType: "complete"`, and `_meta` with the server's identity added
 *                          under `io.modelcontextprotocol/serverInfo`
 *              tools/list  `{tools, resultType: "complete", ttlMs, cacheScope, _meta: {serverInfo}}`,
 *                          the cache fields from the server's hint (server.ts)
 *   error    what a handler throws: 200 `{"jsonrpc": "2.0", "id": id, "error": {code, message, data?}}`,
 *            its code when an integer (else -32603; -32002 becomes -32602; -32021 answers 400)
 *   gone     a client that left before its request was handled: 499, nothing run
 *
 * What it does not take goes to the SDK lane before anything runs: a search bundle's
 * `tools/call` (discovery.ts), and a tool that would run as a task or be followed (a slow or
 * long-running one, call.ts). A result it cannot write exactly (content blocks passed on from an
 * upstream tool, which the SDK's schema checks and trims) goes to the SDK lane already run, to be
 * written there (`settled`).
 */
import { SERVER_INFO_META_KEY, type CallToolResult, type RequestId, type Tool } from "@modelcontextprotocol/server";
import { callPlain, prepareCall, type PreparedCall } from "./call.ts";
import { discoveryTools, searches } from "./discovery.ts";
import type { DirectRoute } from "./direct-route.ts";
import type { McpScope } from "./scope.ts";
import { listCacheHint, SERVER_INFO } from "./server.ts";
import { listTools } from "./tools.ts";

/** The lane's answer; `settled`: a call run here whose result the SDK lane must write; undefined: the SDK lane's request. */
export type DirectAnswer = { response: Response } | { settled: CallToolResult } | undefined;

export async function serveDirect(scope: McpScope, route: DirectRoute, signal: AbortSignal): Promise<DirectAnswer> {
  const search = searches(scope);
  if (route.method === "tools/call" && search) return undefined;
  const hint = listCacheHint(scope.env);
  // The SDK refuses to build a server with a hint it cannot send (and answers 500): its lane.
  if (route.method === "tools/list" && !(Number.isSafeInteger(hint.ttlMs) && hint.ttlMs >= 0)) return undefined;
  // The SDK's per-request transport handles nothing for a client that has gone.
  if (signal.aborted) return { response: new Response(null, { status: 499 }) };
  if (route.method === "tools/list")
    return answerList(
      route.id,
      async () => (search ? discoveryTools(scope, "modern") : await listTools(scope, "modern")),
      hint,
    );
  let prepared: PreparedCall;
  try {
    prepared = await prepareCall(scope, route.call, route.meta);
  } catch (error) {
    return { response: errorAnswer(route.id, error) };
  }
  // A slow or long-running tool runs as a task or followed (call.ts): the SDK lane's.
  if (prepared.use === "always") return undefined;
  return answerCall(route.id, () => callPlain(scope, prepared));
}

/** A `tools/list` answer, as the SDK writes what `list` returns or throws. */
export async function answerList(
  id: RequestId,
  list: () => Promise<Tool[]>,
  hint: { ttlMs: number; cacheScope: string },
): Promise<{ response: Response }> {
  try {
    return { response: resultAnswer(id, listResult(await list(), hint)) };
  } catch (error) {
    return { response: errorAnswer(id, error) };
  }
}

/** A `tools/call` answer, as the SDK writes what `run` returns or throws (or `settled`: for the SDK to write). */
export async function answerCall(
  id: RequestId,
  run: () => Promise<CallToolResult>,
): Promise<{ response: Response } | { settled: CallToolResult }> {
  let result: CallToolResult;
  try {
    result = await run();
  } catch (error) {
    return { response: errorAnswer(id, error) };
  }
  const written = callResult(result);
  return written ? { response: resultAnswer(id, written) } : { settled: result };
}

/**
 * A `tools/call` result as the SDK writes it, when it has the shapes results.ts builds (text
 * blocks only); undefined for anything its schema might check or trim otherwise.
 */
function callResult(result: CallToolResult): Record<string, unknown> | undefined {
  const { _meta, content, structuredContent, isError, ...rest } = result;
  if (Object.keys(rest).length > 0 || !Array.isArray(content) || !content.every(isTextBlock)) return undefined;
  if (isError !== undefined && typeof isError !== "boolean") return undefined;
  if (_meta !== undefined && (!isPlainObject(_meta) || SERVER_INFO_META_KEY in _meta)) return undefined;
  const identity = { [SERVER_INFO_META_KEY]: SERVER_INFO };
  return {
    ...(_meta !== undefined ? { _meta: { ..._meta, ...identity } } : {}),
    content: content.map((block) => ({ type: "text", text: (block as { text: string }).text })),
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError !== undefined ? { isError } : {}),
    resultType: "complete",
    ...(_meta === undefined ? { _meta: identity } : {}),
  };
}

/** A `tools/list` result as the SDK writes it (a 2026-07-28 tool has no `execution`: the SDK deletes it). */
function listResult(tools: Tool[], hint: { ttlMs: number; cacheScope: string }): Record<string, unknown> {
  return {
    tools: tools.map((tool) => {
      if (!("execution" in tool)) return tool;
      const { execution: _, ...rest } = tool;
      return rest;
    }),
    resultType: "complete",
    ttlMs: hint.ttlMs,
    cacheScope: hint.cacheScope,
    _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO },
  };
}

function resultAnswer(id: RequestId, result: Record<string, unknown>): Response {
  return Response.json(
    { result, jsonrpc: "2.0", id },
    { status: 200, headers: { "Content-Type": "application/json" } },
  );
}

/** What a handler threw, as the SDK's protocol layer answers it (in-band: the handler ran). */
function errorAnswer(id: RequestId, thrown: unknown): Response {
  const error = (thrown ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  const raw = Number.isSafeInteger(error.code) ? (error.code as number) : -32603;
  const code = raw === -32002 ? -32602 : raw;
  const body = {
    jsonrpc: "2.0",
    id,
    error: {
      code,
      message: error.message ?? "Internal error",
      ...(error.data !== undefined ? { data: error.data } : {}),
    },
  };
  // MCP says a missing client capability (-32021) is a 400 wherever it is raised.
  return Response.json(body, { status: code === -32021 ? 400 : 200, headers: { "Content-Type": "application/json" } });
}

/** A text block as results.ts builds it: `type` and `text`, nothing the SDK's schema would drop or reorder. */
function isTextBlock(block: unknown): boolean {
  if (!isPlainObject(block) || block.type !== "text" || typeof block.text !== "string") return false;
  return Object.keys(block).every((key) => key === "type" || key === "text");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
