/**
 * Which requests the direct lane (direct.ts) answers: a 2026-07-28 `tools/call` or `tools/list`
 * that the SDK would hand to its handler without a rejection, and whose answer is one plain JSON
 * body. The SDK's own checks decide the first part (its exported `classifyInboundRequest`: the
 * JSON-RPC shape, the envelope in `_meta`, the headers against the body); the rest is the SDK's
 * later steps written down for the one case that passes them:
 *
 *   Content-Type    a JSON media type (else the SDK answers 415)
 *   headers         `MCP-Protocol-Version` and `Mcp-Method` present (the classifier has checked
 *                   that present ones agree with the body); for `tools/call`, `Mcp-Name` equal to
 *                   `params.name` as it is, not Base64-encoded
 *   revision        exactly 2026-07-28, the one modern revision the SDK serves
 *   params          what the SDK's dispatch schema takes unchanged: a string `name`, `arguments`
 *                   absent or a plain object (no own `__proto__`, which its parse would drop),
 *                   `cursor` absent or a string; no `task`, `inputResponses` or `requestState`
 *   no stream       no `progressToken` and no log level in `_meta`: nothing may be sent before
 *                   the answer, so it is plain JSON
 *
 * Anything else is undefined, and goes to the SDK, which answers it as before: every rejection,
 * every notification, batch, 2025 request and stream stays the SDK's, so this lane has no error
 * texts of its own to keep in step.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  type RequestId,
} from "@modelcontextprotocol/server";

/** The revision the lane serves: the SDK's only modern one (a newer one goes to the SDK, which knows it or refuses it). */
export const DIRECT_REVISION = "2026-07-28";

/** The `_meta` keys the SDK lifts out of a request before its handler sees it (the envelope). */
const ENVELOPE_KEYS = [
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
  LOG_LEVEL_META_KEY,
];
/** Params members the SDK treats itself (multi-round-trip retries) or drops (a 2025 task request). */
const NOT_PLAIN_PARAMS = ["task", "inputResponses", "requestState"];

export type DirectRoute = {
  id: RequestId;
  /** `_meta` without the envelope's keys, as the SDK hands it to a handler; absent when nothing is left. */
  meta?: Record<string, unknown>;
} & (
  | { method: "tools/list" }
  /** The tool and its arguments, as the handler would get them. */
  | { method: "tools/call"; call: { name: string; arguments?: Record<string, unknown> } }
);

/** The request as the direct lane takes it, or undefined: the SDK's. `body` is the parsed body (undefined if it was not JSON). */
export function directRoute(headers: Headers, body: unknown): DirectRoute | undefined {
  if (!isJsonContentType(headers.get("content-type")) || !isPlainObject(body)) return undefined;
  const method = body.method;
  if (method !== "tools/call" && method !== "tools/list") return undefined;
  const protocolVersion = headers.get("mcp-protocol-version");
  const mcpMethod = headers.get("mcp-method");
  const mcpName = headers.get("mcp-name");
  // The SDK's standard-header rung: on a modern request both are required.
  if (protocolVersion === null || mcpMethod === null) return undefined;
  const route = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: protocolVersion,
    mcpMethodHeader: mcpMethod,
    ...(mcpName !== null ? { mcpNameHeader: mcpName } : {}),
    body,
  });
  if (route.kind !== "modern" || route.messageKind !== "request") return undefined;
  if (route.classification.revision !== DIRECT_REVISION) return undefined;

  // A modern route has proved params._meta an object carrying the envelope.
  const params = body.params as Record<string, unknown>;
  const meta = params._meta as Record<string, unknown>;
  if (NOT_PLAIN_PARAMS.some((key) => key in params)) return undefined;
  if ("progressToken" in meta || LOG_LEVEL_META_KEY in meta) return undefined;

  if (method === "tools/call") {
    const { name, arguments: args } = params;
    if (typeof name !== "string") return undefined;
    if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, "__proto__"))) return undefined;
    // Mcp-Name mirrors params.name; absent, different, or Base64-encoded is the SDK's to judge.
    if (mcpName === null || withoutOws(mcpName) !== name || name.startsWith("=?")) return undefined;
    const call = { name, ...(args !== undefined ? { arguments: args } : {}) };
    return { id: route.message.id, method, call, ...lifted(meta) };
  }
  if (params.cursor !== undefined && typeof params.cursor !== "string") return undefined;
  return { id: route.message.id, method, ...lifted(meta) };
}

/** `_meta` less the envelope's keys, exactly as the SDK lifts them (absent when none is left). */
function lifted(meta: Record<string, unknown>): { meta?: Record<string, unknown> } {
  const rest = { ...meta };
  for (const key of ENVELOPE_KEYS) delete rest[key];
  return Object.keys(rest).length > 0 ? { meta: rest } : {};
}

/** RFC 9110 optional whitespace (SP, HTAB) around a field value, as the SDK strips it. */
function withoutOws(value: string): string {
  return value.replace(/^[ \t]+|[ \t]+$/g, "");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
