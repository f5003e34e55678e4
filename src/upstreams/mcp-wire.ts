/**
 * MCP's Streamable HTTP wire as the runtime's upstream client speaks it
 * (docs/decisions/43-own-upstream-client.md): JSON-RPC 2.0 messages, the answer to one request
 * read from an `application/json` body or from a `text/event-stream` (the notifications sent
 * before it handed on as they come), the `Mcp-Param-*` headers a tool's schema asks for, and
 * the errors a failed exchange ends in (src/upstreams/failures.ts maps them). No I/O of its own.
 */
import { createParser, type EventSourceMessage } from "eventsource-parser";
import type { Value } from "../../providers/sdk/protocol.ts";
import type { UpstreamEra } from "./target.ts";

/** The modern era's revision: stateless requests, each carrying its own `_meta` envelope. */
export const MODERN_VERSION = "2026-07-28";
/** The 2025-era revisions the client accepts from `initialize`, the newest first (it offers that one). */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

/** Who the runtime says it is to an upstream. */
export const CLIENT_INFO = { name: "tool-runtime", version: "1.0.0" };

export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

export type JsonObject = { [key: string]: unknown };
export type RequestId = string | number;

export interface JsonRpcMessage {
  jsonrpc: "2.0";
  id?: RequestId | null;
  method?: string;
  params?: JsonObject;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

/** The upstream's JSON-RPC error answer to a request: it understood the request and refused it. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "JsonRpcError";
  }
}

/** A non-2xx HTTP answer (a redirect the client does not follow included). */
export class UpstreamHttpError extends Error {
  constructor(readonly status: number) {
    super(`the upstream answered HTTP ${status}`);
    this.name = "UpstreamHttpError";
  }
}

/**
 * An exchange that ended without an answer: the request could not be sent, the stream closed
 * before the answer, the answer is not the MCP the request asks for, or it did not come in time.
 */
export type WireFault = "SEND_FAILED" | "CONNECTION_CLOSED" | "INVALID_RESULT" | "REQUEST_TIMEOUT";

export class WireError extends Error {
  constructor(
    readonly code: WireFault,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = "WireError";
  }
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The most of a body the reader takes: past `maxBytes` it stops and throws what `exceeded`
 * gives. Counted as the bytes are read, not by a stream piped in between: the reader is the
 * only one that needs the count, and a pipe would copy every chunk through JavaScript.
 */
export interface ByteLimit {
  maxBytes: number;
  exceeded: () => Error;
}

/** The body as text, read to its end or to the limit (then let go). */
export async function readText(response: Response, limit?: ByteLimit): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      seen += value.byteLength;
      if (limit && seen > limit.maxBytes) throw limit.exceeded();
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/**
 * The result of request `id` in `response`: thrown as JsonRpcError if the upstream refused it,
 * as WireError or SyntaxError if no answer is there. Every notification (and request) before
 * the answer goes to `seen`; the body is let go as soon as the answer is read, and no more of
 * it than `limit` is read.
 */
export async function readAnswer(
  response: Response,
  id: RequestId,
  seen: (m: JsonRpcMessage) => void,
  limit?: ByteLimit,
) {
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/json") {
    const data: unknown = JSON.parse(await readText(response, limit));
    for (const m of Array.isArray(data) ? data : [data]) {
      const answer = take(m, id, seen);
      if (answer) return answer.result;
    }
    throw new WireError("INVALID_RESULT", "the upstream's JSON answer holds no response to the request");
  }
  if (type !== "text/event-stream" || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new WireError("INVALID_RESULT", `the upstream answered with content type ${type || "none"}`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => void events.push(e) });
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new WireError("CONNECTION_CLOSED", "the upstream's event stream ended before its answer");
      bytes += value.byteLength;
      if (limit && bytes > limit.maxBytes) throw limit.exceeded();
      parser.feed(decoder.decode(value, { stream: true }));
      const batch = events;
      events = [];
      for (const e of batch) {
        // An event without data primes the stream (its id is for resuming, which this client does not do).
        if ((e.event ?? "message") !== "message" || e.data.trim() === "") continue;
        const answer = take(JSON.parse(e.data), id, seen);
        if (answer) return answer.result;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** The answer to `id` if `m` is it; any other message goes to `seen`, or is no JSON-RPC at all. */
function take(m: unknown, id: RequestId, seen: (m: JsonRpcMessage) => void): { result: unknown } | undefined {
  if (!isObject(m) || m.jsonrpc !== "2.0")
    throw new WireError("INVALID_RESULT", "the upstream sent a non-JSON-RPC message");
  const message: JsonRpcMessage = { ...m, jsonrpc: "2.0" };
  if (typeof message.method === "string") {
    seen(message);
    return undefined;
  }
  if (message.id !== id) return undefined;
  if (isObject(message.error)) {
    const { code, message: text, data } = message.error;
    if (typeof code !== "number") throw new WireError("INVALID_RESULT", "the upstream's error answer has no code");
    throw new JsonRpcError(code, typeof text === "string" ? text : "", data);
  }
  if (!("result" in message))
    throw new WireError("INVALID_RESULT", "the upstream's answer has neither result nor error");
  return { result: message.result };
}

/** A JSON-RPC error answer in an HTTP error's body, to request `id` (2026-07-28 servers answer some refusals so). */
export function errorInBody(text: string, id: RequestId): JsonRpcError | undefined {
  try {
    take(JSON.parse(text), id, () => {});
  } catch (err) {
    if (err instanceof JsonRpcError) return err;
  }
  return undefined;
}

/** A result that must be an object (every MCP result is); a modern one must be complete. */
export function resultObject(result: unknown, what: string): JsonObject {
  if (!isObject(result)) throw new WireError("INVALID_RESULT", `the upstream's ${what} result is not an object`);
  if (result.resultType !== undefined && result.resultType !== "complete")
    throw new WireError(
      "INVALID_RESULT",
      `the upstream's ${what} result is not complete (${String(result.resultType)})`,
    );
  return result;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = ["string", "integer", "boolean"];

/**
 * The `Mcp-Param-{Name}` headers of one `tools/call`: each argument the approved input schema
 * marks with `x-mcp-header` (on a property reached through `properties` alone, of a primitive
 * type), its value as text, base64-wrapped where it is not plain visible ASCII. A schema that
 * marks anything else gets no headers (such a tool is not one the spec lets a client mirror).
 */
export function paramHeaders(schema: unknown, args: JsonObject): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (node: unknown, value: unknown, depth: number): boolean => {
    if (!isObject(node)) return true;
    const name = node["x-mcp-header"];
    if (name !== undefined) {
      if (depth === 0 || typeof name !== "string" || !TOKEN.test(name)) return false;
      if (typeof node.type !== "string" || !HEADER_TYPES.includes(node.type)) return false;
      const text = headerText(value);
      if (text !== undefined) out[`Mcp-Param-${name}`] = encodeParam(text);
    }
    if (!isObject(node.properties) || depth > 16) return true;
    return Object.entries(node.properties).every(([key, child]) =>
      visit(child, isObject(value) ? value[key] : undefined, depth + 1),
    );
  };
  return visit(schema, args, 0) ? out : {};
}

function headerText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function encodeParam(s: string): string {
  const plain = s.length > 0 && s === s.trim() && /^[\t\x20-\x7e]*$/.test(s) && !/^=\?base64\?.*\?=$/.test(s);
  if (plain) return s;
  let bin = "";
  for (const b of new TextEncoder().encode(s)) bin += String.fromCodePoint(b);
  return `=?base64?${btoa(bin)}?=`;
}

/** The per-request `_meta` envelope of 2026-07-28 (no capabilities: the runtime asks nothing of an upstream). */
export function modernEnvelope(): JsonObject {
  return { [META_PROTOCOL_VERSION]: MODERN_VERSION, [META_CLIENT_INFO]: CLIENT_INFO, [META_CLIENT_CAPABILITIES]: {} };
}

/**
 * `server/discover`: a modern era where it answers with a version this client speaks; none
 * (so `initialize`) where the server does not know it. No answer at all, a refused credential
 * or a server error fails the listing, as `initialize` would have.
 */
export async function probe<R>(
  request: (method: string, params: JsonObject, r: R) => Promise<unknown>,
  r: R,
): Promise<Extract<UpstreamEra, { kind: "modern" }> | undefined> {
  let result: unknown;
  try {
    result = await request("server/discover", { _meta: modernEnvelope() }, r);
  } catch (err) {
    if (err instanceof JsonRpcError) return undefined;
    if (err instanceof UpstreamHttpError && err.status < 500 && err.status !== 401 && err.status !== 403)
      return undefined;
    throw err;
  }
  const found = (result ?? {}) as JsonObject;
  if (!Array.isArray(found.supportedVersions) || !found.supportedVersions.includes(MODERN_VERSION)) return undefined;
  return {
    kind: "modern",
    discover: {
      supportedVersions: found.supportedVersions as Value[],
      capabilities: (typeof found.capabilities === "object" && found.capabilities !== null
        ? found.capabilities
        : {}) as Value,
    },
  };
}
