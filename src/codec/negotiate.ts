/**
 * Content negotiation (docs/contract.md#formats): JSON is the default and the debug format;
 * MessagePack (`application/msgpack`, also `application/vnd.msgpack`) is accepted in requests
 * and given to callers who ask for it. Every answer, errors included, goes out in the
 * caller's format.
 */
import { decode, encode } from "@msgpack/msgpack";
import { RuntimeError } from "../errors.ts";
import { retryAfterHeaders } from "../retry-after.ts";
import { fromJson, toJson } from "./bytes.ts";
import { MAX_INPUT_DEPTH } from "./input-depth.ts";
import { msgpackNestsDeeper } from "./msgpack-depth.ts";

export type Format = "json" | "msgpack";

const MSGPACK = new Set(["application/msgpack", "application/vnd.msgpack", "application/x-msgpack"]);

/** The request body's format; anything else is refused with 415. */
export function requestFormat(contentType: string | null | undefined): Format {
  const type = (contentType ?? "application/json").split(";")[0].trim().toLowerCase();
  if (type === "application/json" || type === "") return "json";
  if (MSGPACK.has(type)) return "msgpack";
  throw new RuntimeError(
    "unsupported_media_type",
    `unsupported content type ${type}; send application/json or application/msgpack`,
    { content_type: type },
  );
}

/** The answer's format from `Accept` (q-values honoured); none acceptable is 406. */
export function responseFormat(accept: string | null | undefined): Format {
  if (!accept || accept.trim() === "") return "json";
  const ranges = accept
    .split(",")
    .map((part) => {
      const [type, ...params] = part.trim().toLowerCase().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      return { type: type.trim(), q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const r of ranges) {
    if (MSGPACK.has(r.type)) return "msgpack";
    if (
      r.type === "application/json" ||
      r.type === "application/*" ||
      r.type === "*/*" ||
      r.type === "text/event-stream"
    )
      return "json";
  }
  throw new RuntimeError("not_acceptable", "this endpoint answers application/json or application/msgpack", { accept });
}

/** Decodes a JSON or MessagePack body (docs/contract.md#formats). */
export function decodeBody(body: Uint8Array, contentType: string | null): unknown {
  const format = requestFormat(contentType);
  if (body.byteLength === 0)
    throw new RuntimeError(
      "invalid_request",
      `request body is empty; send a ${format === "json" ? "JSON" : "MessagePack"} object`,
    );
  return decodeAs(format, body);
}

export function decodeAs(format: Format, body: Uint8Array): unknown {
  if (format === "json") {
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body);
    } catch {
      throw new RuntimeError("invalid_request", "request body is not valid UTF-8");
    }
    try {
      return fromJson(text);
    } catch (err) {
      throw new RuntimeError("invalid_request", `request body is not valid JSON: ${(err as Error).message}`);
    }
  }
  // A bomb is a 400: no declared length can be longer than the body that declares it (each
  // item takes at least a byte), and nesting is bounded before the decoder builds anything.
  if (msgpackNestsDeeper(body, MAX_INPUT_DEPTH)) {
    throw new RuntimeError("invalid_request", `request nests deeper than ${MAX_INPUT_DEPTH} levels`, {
      max_depth: MAX_INPUT_DEPTH,
    });
  }
  const n = body.byteLength;
  try {
    return decode(body, { maxStrLength: n, maxBinLength: n, maxArrayLength: n, maxMapLength: n, maxExtLength: n });
  } catch (err) {
    throw new RuntimeError("invalid_request", `request body is not valid MessagePack: ${(err as Error).message}`);
  }
}

export function encodeAs(format: Format, value: unknown): { body: BodyInit; contentType: string } {
  if (format === "msgpack")
    return { body: encode(value, { ignoreUndefined: true }), contentType: "application/msgpack" };
  return { body: toJson(value), contentType: "application/json" };
}

/**
 * A Response in the caller's format. Every REST answer (JSON or MessagePack) passes here, so
 * this is where a 429 or 503 gets its `Retry-After` (src/retry-after.ts), refusal or ended
 * execution alike.
 */
export function respond(format: Format, value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  const { body, contentType } = encodeAs(format, value);
  return new Response(body, {
    status,
    headers: { ...retryAfterHeaders(status, value), ...headers, "content-type": contentType },
  });
}

/** `c.json` in the caller's format: `reply(c, value, status, headers)`. */
export function reply(
  c: { get(key: "format"): Format | undefined },
  value: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return respond(c.get("format") ?? "json", value, status, headers);
}
