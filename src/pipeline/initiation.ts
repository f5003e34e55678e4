/**
 * Stage 1 (AIOS §5.1): call initiation. Reads the body within the size limit, decodes it and
 * checks the TRT-002 §4 envelope. Everything wrong with the request itself (not with the
 * tool's input) ends here with `invalid_request` or `payload_too_large`.
 */
import type { ExecutionRequest } from "../contract.ts";
import { decodeAs, requestFormat } from "../codec/negotiate.ts";
import { RuntimeError } from "../errors.ts";
import { exceedsDepth, MAX_INPUT_DEPTH } from "./input-depth.ts";

const ENVELOPE_FIELDS = new Set(["tool", "version", "provider", "tenant", "project", "input", "context", "limits", "mode", "stream", "idempotency_key"]);
const LIMIT_FIELDS = new Set(["timeout_ms", "max_output_bytes"]);

/** Reads at most `maxBytes` of the body; a longer body is refused without reading it all. */
export async function readBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > maxBytes) {
    throw new RuntimeError("payload_too_large", `request body is ${declared} bytes; the maximum is ${maxBytes}`, {
      max_bytes: maxBytes,
      actual_bytes: Number(declared),
    });
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new RuntimeError("payload_too_large", `request body exceeds the maximum of ${maxBytes} bytes`, { max_bytes: maxBytes });
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return body;
}

/** Decodes a JSON or MessagePack body (TRT-002 §1; AIOS §5.1 SerializationFormat). */
export function decodeBody(body: Uint8Array, contentType: string | null): unknown {
  const format = requestFormat(contentType);
  if (body.byteLength === 0) throw new RuntimeError("invalid_request", `request body is empty; send a ${format === "json" ? "JSON" : "MessagePack"} object`);
  return decodeAs(format, body);
}

/** TRT-002 §4 envelope check: known fields only, each of the right type. */
export function parseExecutionRequest(value: unknown): ExecutionRequest {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RuntimeError("invalid_request", "request body must be a JSON object");
  }
  if (exceedsDepth(value)) {
    throw new RuntimeError("invalid_request", `request nests deeper than ${MAX_INPUT_DEPTH} levels`, { max_depth: MAX_INPUT_DEPTH });
  }
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!ENVELOPE_FIELDS.has(key)) throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  }
  const tool = body.tool;
  if (tool === undefined) throw new RuntimeError("invalid_request", "field tool is required", { field: "tool" });
  const str = (field: string, max = 256): string | undefined => {
    const v = body[field];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v.length === 0 || v.length > max) {
      throw new RuntimeError("invalid_request", `field ${field} must be a non-empty string of at most ${max} characters`, { field });
    }
    return v;
  };
  const mode = body.mode === undefined ? "sync" : body.mode;
  if (mode !== "sync" && mode !== "async" && mode !== "dry_run") {
    throw new RuntimeError("invalid_request", 'field mode must be "sync", "async" or "dry_run"', { field: "mode" });
  }
  if (body.stream !== undefined && typeof body.stream !== "boolean") {
    throw new RuntimeError("invalid_request", "field stream must be a boolean", { field: "stream" });
  }
  if (body.input === undefined) throw new RuntimeError("invalid_request", "field input is required", { field: "input" });
  const context = body.context === undefined ? {} : body.context;
  if (context === null || typeof context !== "object" || Array.isArray(context)) {
    throw new RuntimeError("invalid_request", "field context must be an object", { field: "context" });
  }
  return {
    tool: str("tool")!,
    version: str("version", 64),
    provider: str("provider", 64),
    tenant: str("tenant", 128),
    project: str("project", 128),
    idempotency_key: idempotencyKey(body.idempotency_key),
    input: body.input,
    context: context as Record<string, unknown>,
    limits: parseLimits(body.limits),
    mode,
    stream: body.stream === true,
  };
}

function parseLimits(value: unknown): ExecutionRequest["limits"] {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RuntimeError("invalid_request", "field limits must be an object", { field: "limits" });
  }
  const limits: ExecutionRequest["limits"] = {};
  for (const [key, v] of Object.entries(value)) {
    if (!LIMIT_FIELDS.has(key)) throw new RuntimeError("invalid_request", `unknown field limits.${key}`, { field: `limits.${key}` });
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
      throw new RuntimeError("invalid_request", `field limits.${key} must be a positive integer`, { field: `limits.${key}` });
    }
    limits[key as keyof ExecutionRequest["limits"]] = v;
  }
  return limits;
}

function idempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new RuntimeError("invalid_request", "field idempotency_key must be 1-255 printable ASCII characters", { field: "idempotency_key" });
  }
  return value;
}
