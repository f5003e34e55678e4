/**
 * Stage 1 (docs/contract.md#initiation): call initiation. Checks the docs/contract.md#request envelope of a body read within the
 * size limits (src/codec/request-body.ts) and decoded (src/codec/negotiate.ts). Everything wrong with the
 * request itself (not with the tool's input) ends here with `invalid_request` or
 * `payload_too_large`.
 */
import type { ExecutionRequest } from "../contract.ts";
import { toJson } from "../codec/bytes.ts";
import { RuntimeError } from "../errors.ts";
import { exceedsDepth, MAX_INPUT_DEPTH } from "../codec/input-depth.ts";

const ENVELOPE_FIELDS = new Set([
  "tool",
  "version",
  "provider",
  "tenant",
  "project",
  "input",
  "context",
  "limits",
  "mode",
  "stream",
  "idempotency_key",
]);
const LIMIT_FIELDS = new Set(["timeout_ms", "max_output_bytes"]);

/**
 * `context` is metadata about a call (a correlation id, a user, a locale), not payload: it is
 * copied into the execution record, handed to the provider and the intent verifier, and its
 * correlation id is kept in the audit log. So it has bounds of its own, far below the payload
 * limit: each string in it (keys included) and the whole of it, as JSON.
 */
export const MAX_CONTEXT_STRING_CHARS = 1_024;
export const MAX_CONTEXT_BYTES = 16 * 1_024;

/** docs/contract.md#request envelope check: known fields only, each of the right type. */
export function parseExecutionRequest(value: unknown): ExecutionRequest {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RuntimeError("invalid_request", "request body must be a JSON object");
  }
  if (exceedsDepth(value)) {
    throw new RuntimeError("invalid_request", `request nests deeper than ${MAX_INPUT_DEPTH} levels`, {
      max_depth: MAX_INPUT_DEPTH,
    });
  }
  const body = value as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!ENVELOPE_FIELDS.has(key))
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  }
  const tool = body.tool;
  if (tool === undefined) throw new RuntimeError("invalid_request", "field tool is required", { field: "tool" });
  const str = (field: string, max = 256): string | undefined => {
    const v = body[field];
    if (v === undefined) return undefined;
    if (typeof v !== "string" || v.length === 0 || v.length > max) {
      throw new RuntimeError(
        "invalid_request",
        `field ${field} must be a non-empty string of at most ${max} characters`,
        { field },
      );
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
  const context = body.context === undefined ? {} : body.context;
  if (context === null || typeof context !== "object" || Array.isArray(context)) {
    throw new RuntimeError("invalid_request", "field context must be an object", { field: "context" });
  }
  checkContext(context as Record<string, unknown>);
  return {
    tool: str("tool")!,
    version: str("version", 64),
    provider: str("provider", 64),
    tenant: str("tenant", 128),
    project: str("project", 128),
    idempotency_key: idempotencyKey(body.idempotency_key),
    // Left out, the input is `{}`: a tool whose schema takes an empty object needs none, and
    // any other refuses it in stage 4 (`invalid_input`, "input failed schema validation: …").
    // The idempotency fingerprint sees `{}` either way, so the two are the same request.
    input: body.input === undefined ? {} : body.input,
    context: context as Record<string, unknown>,
    limits: parseLimits(body.limits),
    mode,
    stream: body.stream === true,
  };
}

/** The context's bounds (above); a refusal names the field, e.g. `context.correlation_id`. */
function checkContext(context: Record<string, unknown>): void {
  const stack: [unknown, string][] = [[context, "context"]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string" && value.length > MAX_CONTEXT_STRING_CHARS) {
      throw new RuntimeError("invalid_request", `field ${path} is longer than ${MAX_CONTEXT_STRING_CHARS} characters`, {
        field: path,
        max_length: MAX_CONTEXT_STRING_CHARS,
      });
    }
    if (value === null || typeof value !== "object" || value instanceof Uint8Array) continue;
    for (const [key, child] of Object.entries(value)) {
      const at = `${path}.${key.length > 64 ? `${key.slice(0, 64)}…` : key}`;
      if (key.length > MAX_CONTEXT_STRING_CHARS) {
        throw new RuntimeError(
          "invalid_request",
          `a key in ${path} is longer than ${MAX_CONTEXT_STRING_CHARS} characters`,
          { field: at, max_length: MAX_CONTEXT_STRING_CHARS },
        );
      }
      stack.push([child, at]);
    }
  }
  const bytes = new TextEncoder().encode(toJson(context)).byteLength;
  if (bytes > MAX_CONTEXT_BYTES) {
    throw new RuntimeError(
      "invalid_request",
      `field context is ${bytes} bytes as JSON; the maximum is ${MAX_CONTEXT_BYTES}`,
      { field: "context", max_bytes: MAX_CONTEXT_BYTES, actual_bytes: bytes },
    );
  }
}

function parseLimits(value: unknown): ExecutionRequest["limits"] {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new RuntimeError("invalid_request", "field limits must be an object", { field: "limits" });
  }
  const limits: ExecutionRequest["limits"] = {};
  for (const [key, v] of Object.entries(value)) {
    if (!LIMIT_FIELDS.has(key))
      throw new RuntimeError("invalid_request", `unknown field limits.${key}`, { field: `limits.${key}` });
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
      throw new RuntimeError("invalid_request", `field limits.${key} must be a positive integer`, {
        field: `limits.${key}`,
      });
    }
    limits[key as keyof ExecutionRequest["limits"]] = v;
  }
  return limits;
}

function idempotencyKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[\x21-\x7e]{1,255}$/.test(value)) {
    throw new RuntimeError("invalid_request", "field idempotency_key must be 1-255 printable ASCII characters", {
      field: "idempotency_key",
    });
  }
  return value;
}
