/**
 * A call's input on its way in: refused as REST refuses it (`invalid_input`), never as the
 * protocol layer's parse error — a JSON body's `input` that is not an object is taken out
 * before the library parses it, and a decoded input may not hold a number JSON cannot carry.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { ConnectError, HandlerContext } from "@connectrpc/connect";
import type { ErrorBody, Violation } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import type { InvokeRequest } from "../gen/tool_runtime/v1/runtime_pb.ts";
import { readBody } from "../codec/request-body.ts";
import { refusalError } from "./messages.ts";
import { INPUT_REFUSAL } from "./request-gate.ts";

/** Where a decoded input holds a number JSON cannot carry (binary codecs can send NaN and ±Infinity). */
function nonFinite(value: unknown, path = ""): Violation[] {
  if (typeof value === "number")
    return Number.isFinite(value) ? [] : [{ path, message: `must be a finite number, not ${value}`, keyword: "type" }];
  if (Array.isArray(value)) return value.flatMap((v, i) => nonFinite(v, `${path}/${i}`));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) =>
      nonFinite(v, `${path}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`),
    );
  return [];
}

function invalidInput(message: string, violations: Violation[]): ConnectError {
  return refusalError(new RuntimeError("invalid_input", message, { violations }).toBody());
}

/** The call's input as JSON, or the `invalid_input` refusal REST would give it. */
export function inputOf(req: InvokeRequest, ctx: HandlerContext): JsonObject {
  const refused = ctx.values.get(INPUT_REFUSAL);
  if (refused) throw refusalError(refused);
  // An unset input is the empty object, as on REST when `input` is left out (the tool's schema decides).
  const input = req.input ?? {};
  const violations = nonFinite(input);
  if (violations.length > 0)
    throw invalidInput(`input ${violations[0].path || "value"} ${violations[0].message}`, violations);
  return input;
}

const JSON_UNARY = /^application\/json(;|$)/;
const JSON_ENVELOPED = /^application\/(connect|grpc-web)\+json(;|$)/;

/**
 * Connect's JSON codecs parse `input` as a Struct, and the protocol layer refuses anything else
 * with its own parse error. So an Invoke body in JSON is read here first: an `input` that is
 * not an object is taken out of the message and becomes the handler's `invalid_input`
 * refusal, as REST would answer it. Binary bodies, and compressed or unreadable ones, pass
 * through untouched.
 */
export async function checkJsonInput(
  request: Request,
  maxBytes: number,
): Promise<{ request: Request; refusal?: ErrorBody }> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  const enveloped = JSON_ENVELOPED.test(type);
  if (!enveloped && !JSON_UNARY.test(type)) return { request };
  if (request.headers.get("content-encoding") || request.headers.get("connect-content-encoding")) return { request };
  let body: Uint8Array;
  try {
    body = await readBody(request, maxBytes);
  } catch (err) {
    if (err instanceof RuntimeError) return { request: rebuilt(request, enveloped, {}), refusal: err.toBody() };
    throw err;
  }
  const start = enveloped ? 5 : 0;
  // An enveloped message: flags (compressed = 1) and a 4-byte length before the JSON.
  const length = enveloped
    ? body.length >= 5 && (body[0] & 1) === 0
      ? new DataView(body.buffer, body.byteOffset).getUint32(1)
      : -1
    : body.length;
  let message: unknown;
  try {
    if (length < 0 || start + length > body.length) throw new Error("not one plain envelope");
    message = JSON.parse(new TextDecoder().decode(body.subarray(start, start + length)));
  } catch {
    return { request: withBody(request, body) };
  }
  if (message === null || typeof message !== "object" || Array.isArray(message) || !("input" in message))
    return { request: withBody(request, body) };
  const input = (message as { input: unknown }).input;
  if (input === null || (typeof input === "object" && !Array.isArray(input)))
    return { request: withBody(request, body) };
  const { input: _dropped, ...rest } = message as Record<string, unknown>;
  const kind = Array.isArray(input) ? "an array" : `a ${typeof input}`;
  const refusal = new RuntimeError("invalid_input", `input must be a JSON object (the tool's arguments), not ${kind}`, {
    violations: [{ path: "", message: `must be object, not ${kind}`, keyword: "type" }],
  }).toBody();
  return { request: rebuilt(request, enveloped, rest), refusal };
}

function rebuilt(request: Request, enveloped: boolean, message: Record<string, unknown>): Request {
  const json = new TextEncoder().encode(JSON.stringify(message));
  if (!enveloped) return withBody(request, json);
  const framed = new Uint8Array(5 + json.length);
  new DataView(framed.buffer).setUint32(1, json.length);
  framed.set(json, 5);
  return withBody(request, framed);
}

function withBody(request: Request, body: Uint8Array): Request {
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  return new Request(request.url, { method: request.method, headers, body: body as BodyInit, signal: request.signal });
}
