/**
 * The Connect and gRPC-Web face (docs/contract.md#faces): ToolRuntimeService from
 * proto/tool_runtime/v1/runtime.proto, served by @connectrpc/connect from the same Worker
 * and the same pipeline as REST. Identity: the same bearer credential as REST.
 *
 * Refused calls (no execution) are Connect errors whose metadata carries the error code (docs/contract.md#errors)
 * (`trt-error-code`, `trt-retryable`); an execution that ran and failed is an Execution
 * message with `error` set, as REST answers with the view and its error.
 *
 * Native gRPC needs HTTP trailers, which a Worker cannot send; a native gRPC client gets a
 * trailers-only answer (grpc-status 12, UNIMPLEMENTED) that says to use gRPC-Web or Connect.
 *
 * Limits, as on REST: the credential and a declared length over the limit are refused in the
 * library's request gate, which runs before any byte of the body is read; a body without a
 * length is cut off once it passes MAX_REQUEST_BYTES (src/codec/request-body.ts), and the
 * library reads no message larger than that (its own default is about 4 GiB).
 *
 * A call's `input` is a google.protobuf.Struct: generated clients take a plain object, and in
 * Connect's JSON form it is the input as written. An input that is not a JSON object (JSON
 * codecs) or holds a number JSON cannot carry (NaN, ±Infinity, binary codecs) is the same
 * `invalid_input` refusal as REST's (Connect `invalid_argument`, `trt-error-code: invalid_input`),
 * never the protocol layer's parse error.
 */
import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  createConnectRouter,
  createContextKey,
  createContextValues,
  type HandlerContext,
} from "@connectrpc/connect";
import { universalServerRequestFromFetch, universalServerResponseToFetch } from "@connectrpc/connect/protocol";
import { authenticate } from "../auth/authenticate.ts";
import type { Caller, ErrorBody, ExecutionView, Outcome, Violation } from "../contract.ts";
import { ERROR_TABLE, isErrorCode, RuntimeError, statusOf } from "../errors.ts";
import { retryAfterHeaders } from "../retry-after.ts";
import {
  ExecutionEventSchema,
  ExecutionSchema,
  ListApprovalsResponseSchema,
  ListToolsResponseSchema,
  ToolRuntimeService,
  type InvokeRequest,
} from "../gen/tool_runtime/v1/runtime_pb.ts";
import { traceFrom } from "../audit/trace.ts";
import { approvals, cancel, decide, execute, get, type CallContext } from "../execution/service.ts";
import { toolList } from "../execution/tool-listing.ts";
import { fromJson as parseStoredJson, toJson as storedJson } from "../codec/bytes.ts";
import { cappedBody, readBody, refuseDeclaredLength } from "../codec/request-body.ts";
import { loadConfig } from "../config.ts";
import { MAX_INPUT_DEPTH } from "../codec/input-depth.ts";
import { payloadLimit } from "../policy/limits.ts";
import { chargeRequests } from "../policy/request-rate.ts";
import { CONNECT_PATH_PREFIX } from "./path.ts";

export { CONNECT_PATH_PREFIX };

/** Error codes → Connect codes, by HTTP status as the Connect protocol maps them. */
function connectCode(code: string): Code {
  switch (isErrorCode(code) ? ERROR_TABLE[code].status : 500) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 409:
      return Code.AlreadyExists;
    case 410:
      return Code.FailedPrecondition;
    case 413:
      return Code.ResourceExhausted;
    case 429:
      return Code.ResourceExhausted;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.DeadlineExceeded;
    default:
      return Code.Internal;
  }
}

/**
 * A refusal as a Connect error: the error code, retryable flag and details ride in metadata,
 * and a 429/503 refusal's `Retry-After` too (an HTTP header of a Connect unary answer, a
 * trailer of a gRPC-Web one).
 */
function refusalError(error: ErrorBody): ConnectError {
  const meta = new Headers({
    "trt-error-code": error.code,
    "trt-retryable": String(error.retryable),
    ...retryAfterHeaders(statusOf(error.code), { error }),
  });
  if (error.details) meta.set("trt-error-details", JSON.stringify(error.details));
  return new ConnectError(error.message, connectCode(error.code), meta);
}

/**
 * An execution that ended with a 429/503 error is still an Execution message (HTTP 200), but it
 * asks the caller to come back later just as REST's 503 does: the answer says when, in
 * `Retry-After`.
 */
function finishedMessage(view: ExecutionView, ctx: HandlerContext) {
  const retryAfter = view.error ? retryAfterHeaders(statusOf(view.error.code), view)["Retry-After"] : undefined;
  if (retryAfter) ctx.responseHeader.set("Retry-After", retryAfter);
  return executionMessage(view);
}

/** The value of an outcome, or its refusal thrown as the Connect error the library sends. */
function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw refusalError(outcome.error);
  return outcome.value;
}

const value = (v: unknown) =>
  v === undefined ? undefined : fromJson(ValueSchema, parseStoredJson(storedJson(v)) as JsonValue);
const object = (v: unknown) => (v === undefined ? undefined : (parseStoredJson(storedJson(v)) as JsonObject));

function executionMessage(view: ExecutionView) {
  return create(ExecutionSchema, {
    executionId: view.execution_id,
    tool: view.tool,
    version: view.version,
    status: view.status,
    output: value(view.output),
    partialOutput: value(view.partial_output),
    error: view.error
      ? {
          code: view.error.code,
          message: view.error.message,
          type: view.error.type,
          retryable: view.error.retryable,
          details: object(view.error.details),
        }
      : undefined,
    execution: object(view.execution),
    position: view.position,
    approval: object(view.approval),
  });
}

/** The caller, set by the request gate before the body is read. */
/** The methods that are calls: admission charges them, not the gate. */
const CALLS = new Set(["Invoke", "InvokeStream"]);
const AUTH_FAILURE = createContextKey<RuntimeError | undefined>(undefined, {
  description: "the credential's refusal, when it failed",
});
const CALLER = createContextKey<Caller | undefined>(undefined, { description: "the authenticated caller" });

function callerOf(ctx: HandlerContext): Caller {
  const caller = ctx.values.get(CALLER);
  if (!caller) throw new ConnectError("no caller was established", Code.Internal);
  return caller;
}

/**
 * Runs before the library reads any of the body: the credential (the refusal REST would give),
 * then a declared length over the caller's payload limit.
 */
async function gate(env: Env, ctx: HandlerContext, waitUntil: (p: Promise<unknown>) => void): Promise<void> {
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

/**
 * Set by serveConnect when it refused the request's input before the protocol layer parsed it
 * (a JSON body whose `input` is not an object, or one too large to read): the handler answers
 * with this refusal once the caller is known.
 */
const INPUT_REFUSAL = createContextKey<ErrorBody | undefined>(undefined, {
  description: "the input's refusal, found before parsing",
});

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
function inputOf(req: InvokeRequest, ctx: HandlerContext): JsonObject {
  const refused = ctx.values.get(INPUT_REFUSAL);
  if (refused) throw refusalError(refused);
  // An unset input is the empty object, as on REST when `input` is left out (the tool's schema decides).
  const input = req.input ?? {};
  const violations = nonFinite(input);
  if (violations.length > 0)
    throw invalidInput(`input ${violations[0].path || "value"} ${violations[0].message}`, violations);
  return input;
}

function envelope(
  req: InvokeRequest,
  input: JsonObject,
  mode: "sync" | "async",
  stream = false,
): Record<string, unknown> {
  return {
    tool: req.tool,
    input,
    mode,
    ...(stream ? { stream: true } : {}),
    ...(req.version ? { version: req.version } : {}),
    ...(req.provider ? { provider: req.provider } : {}),
    ...(req.context ? { context: req.context } : {}),
    ...(req.idempotencyKey ? { idempotency_key: req.idempotencyKey } : {}),
    ...(req.limits && (req.limits.timeoutMs || req.limits.maxOutputBytes)
      ? {
          limits: {
            ...(req.limits.timeoutMs ? { timeout_ms: req.limits.timeoutMs } : {}),
            ...(req.limits.maxOutputBytes ? { max_output_bytes: req.limits.maxOutputBytes } : {}),
          },
        }
      : {}),
  };
}

function routes(env: Env, waitUntil: (p: Promise<unknown>) => void) {
  const context = (ctx: HandlerContext): CallContext => ({
    env,
    caller: callerOf(ctx),
    face: "connect",
    acceptedAt: Date.now(),
    trace: traceFrom(ctx.requestHeader.get("traceparent")),
    waitUntil,
  });

  return createConnectRouter({
    grpc: false,
    grpcWeb: true,
    connect: true,
    requestGate: (ctx) => gate(env, ctx, waitUntil),
    readMaxBytes: loadConfig(env).maxRequestBytes,
    // google.protobuf.Value nests two messages per level (Value, then Struct or ListValue): room
    // for every input REST accepts (MAX_INPUT_DEPTH levels), not the library's default of 100.
    binaryOptions: { recursionLimit: 2 * MAX_INPUT_DEPTH + 4 },
  }).service(ToolRuntimeService, {
    async invoke(req, ctx) {
      const answer = valueOf(await execute(context(ctx), envelope(req, inputOf(req, ctx), "sync")));
      if (answer.kind !== "finished") throw new ConnectError(`unexpected answer ${answer.kind}`, Code.Internal);
      return finishedMessage(answer.view, ctx);
    },
    async *invokeStream(req, ctx) {
      const answer = valueOf(await execute(context(ctx), envelope(req, inputOf(req, ctx), "async", true)));
      if (answer.kind !== "stream") throw new ConnectError(`unexpected answer ${answer.kind}`, Code.Internal);
      // The service streams event objects; here each becomes a message.
      for await (const e of answer.events) {
        yield create(ExecutionEventSchema, {
          seq: BigInt(e.seq),
          type: e.type,
          at: new Date(e.at).toISOString(),
          data: value(e.data),
        });
      }
    },
    async getExecution(req, ctx) {
      return executionMessage(valueOf(await get({ env, caller: callerOf(ctx) }, req.executionId)));
    },
    async cancel(req, ctx) {
      return executionMessage(valueOf(await cancel({ env, caller: callerOf(ctx) }, req.executionId, req.graceMs)));
    },
    async approve(req, ctx) {
      return executionMessage(
        valueOf(await decide({ env, caller: callerOf(ctx) }, req.executionId, "approved", req.reason || undefined)),
      );
    },
    async reject(req, ctx) {
      return executionMessage(
        valueOf(await decide({ env, caller: callerOf(ctx) }, req.executionId, "rejected", req.reason || undefined)),
      );
    },
    async listApprovals(_req, ctx) {
      const list = valueOf(await approvals({ env, caller: callerOf(ctx) }));
      return create(ListApprovalsResponseSchema, { approvals: list.approvals.map((a) => object(a)!) });
    },
    async listTools(_req, ctx) {
      const list = valueOf(await toolList(env, callerOf(ctx), waitUntil));
      return create(ListToolsResponseSchema, {
        tools: list.tools.map((t) => ({
          name: t.name,
          activeVersion: t.active_version,
          versions: t.versions,
          description: t.description,
        })),
      });
    },
  });
}

/** Serves one Connect or gRPC-Web request; native gRPC gets a clear trailers-only refusal. */
export async function serveConnect(
  request: Request,
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
): Promise<Response> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (/^application\/grpc(\+proto|\+json)?(;|$)/.test(type)) {
    return new Response(null, {
      status: 200,
      headers: {
        "content-type": "application/grpc",
        "grpc-status": String(Code.Unimplemented),
        "grpc-message": encodeURIComponent(
          "native gRPC needs HTTP trailers, which Workers cannot send; use gRPC-Web or Connect at the same path",
        ),
      },
    });
  }
  const path = new URL(request.url).pathname;
  const handler = routes(env, waitUntil).handlers.find((h) => h.requestPath === path);
  if (!handler)
    return new Response(JSON.stringify({ code: "unimplemented", message: `no method ${path}` }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  const takesInput = path.endsWith("/Invoke") || path.endsWith("/InvokeStream");
  // The credential first, before any byte of the body is read (src/codec/request-body.ts): a
  // request without one goes straight to the library, whose gate refuses it unread.
  let failure: RuntimeError | undefined;
  const caller = await authenticate(env, request).catch((err: unknown) => {
    if (!(err instanceof RuntimeError)) throw err;
    failure = err;
    return undefined;
  });
  const config = loadConfig(env);
  const max = caller ? payloadLimit(config, caller.tenant) : config.maxRequestBytes;
  const { request: checked, refusal } =
    takesInput && caller ? await checkJsonInput(request, max) : { request, refusal: undefined };
  // The body the library reads is cut off past the limit, with the refusal REST would give.
  const capped = checked.body
    ? new Request(checked, { body: cappedBody(checked.body, max, (err) => refusalError(err.toBody())) })
    : checked;
  const universal = {
    ...universalServerRequestFromFetch(capped, {}),
    contextValues: createContextValues().set(INPUT_REFUSAL, refusal).set(CALLER, caller).set(AUTH_FAILURE, failure),
  };
  return parseFailureAsInvalid(universalServerResponseToFetch(await handler(universal)));
}

/**
 * The library answers a binary message it cannot parse — nested past the reader's recursion
 * limit, or malformed — with `internal` (HTTP 500), and a JSON one with `invalid_argument`: a
 * malformed request is the caller's mistake, so a Connect unary answer of that kind becomes
 * the same 400 as its JSON twin, with the REST code. (In a gRPC-Web or streamed answer the
 * status is already in the body's trailer; those keep the library's code.)
 */
async function parseFailureAsInvalid(res: Response): Promise<Response> {
  if (res.status !== 500 || !res.headers.get("content-type")?.startsWith("application/json")) return res;
  const text = await res.text();
  const error = JSON.parse(text) as { code?: string; message?: string };
  if (error.code !== "internal" || !error.message?.startsWith("parse binary:")) return new Response(text, res);
  const headers = new Headers(res.headers);
  headers.set("trt-error-code", "invalid_request");
  headers.set("trt-retryable", "false");
  headers.delete("content-length");
  return new Response(JSON.stringify({ code: "invalid_argument", message: error.message }), { status: 400, headers });
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
async function checkJsonInput(request: Request, maxBytes: number): Promise<{ request: Request; refusal?: ErrorBody }> {
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
