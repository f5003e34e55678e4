/**
 * The Connect and gRPC-Web face (TRT-002 §1, §3): ToolRuntimeService from
 * proto/tool_runtime/v1/runtime.proto, served by @connectrpc/connect from the same Worker
 * and the same pipeline as REST. Identity: the same bearer credential as REST.
 *
 * Refused calls (no execution) are Connect errors whose metadata carries the TRT-002 code
 * (`trt-error-code`, `trt-retryable`); an execution that ran and failed is an Execution
 * message with `error` set, as REST answers with the view and its error.
 *
 * Native gRPC needs HTTP trailers, which a Worker cannot send; a native gRPC client gets a
 * trailers-only answer (grpc-status 12, UNIMPLEMENTED) that says to use gRPC-Web or Connect.
 */
import { create, fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { createFetchHandler } from "@connectrpc/connect/protocol";
import { authenticate } from "../auth/authenticate.ts";
import type { Caller, ErrorBody, ExecutionView, Outcome } from "../contract.ts";
import { ERROR_TABLE, isErrorCode, RuntimeError } from "../errors.ts";
import { ExecutionEventSchema, ExecutionSchema, ListApprovalsResponseSchema, ListToolsResponseSchema, ToolRuntimeService, type InvokeRequest } from "../gen/tool_runtime/v1/runtime_pb.ts";
import { traceFrom } from "../audit/trace.ts";
import { approvals, cancel, decide, execute, get, type CallContext } from "../execution/service.ts";
import { toolList } from "../registry/tool-views.ts";
import { fromJson as parseStoredJson, toJson as storedJson } from "../codec/bytes.ts";

export const CONNECT_PATH_PREFIX = `/${ToolRuntimeService.typeName}/`;

/** TRT-002 codes → Connect codes, by HTTP status as the Connect protocol maps them. */
function connectCode(code: string): Code {
  switch (isErrorCode(code) ? ERROR_TABLE[code].status : 500) {
    case 400: return Code.InvalidArgument;
    case 401: return Code.Unauthenticated;
    case 403: return Code.PermissionDenied;
    case 404: return Code.NotFound;
    case 409: return Code.AlreadyExists;
    case 410: return Code.FailedPrecondition;
    case 413: return Code.ResourceExhausted;
    case 429: return Code.ResourceExhausted;
    case 503: return Code.Unavailable;
    case 504: return Code.DeadlineExceeded;
    default: return Code.Internal;
  }
}

/** A refusal as a Connect error: the TRT-002 code, retryable flag and details ride in metadata. */
function refusalError(error: ErrorBody): ConnectError {
  const meta = new Headers({ "trt-error-code": error.code, "trt-retryable": String(error.retryable) });
  if (error.details) meta.set("trt-error-details", JSON.stringify(error.details));
  return new ConnectError(error.message, connectCode(error.code), meta);
}

/** The value of an outcome, or its refusal thrown as the Connect error the library sends. */
function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw refusalError(outcome.error);
  return outcome.value;
}

const value = (v: unknown) => (v === undefined ? undefined : fromJson(ValueSchema, parseStoredJson(storedJson(v)) as JsonValue));
const object = (v: unknown) => (v === undefined ? undefined : (parseStoredJson(storedJson(v)) as JsonObject));

function executionMessage(view: ExecutionView) {
  return create(ExecutionSchema, {
    executionId: view.execution_id,
    tool: view.tool,
    version: view.version,
    status: view.status,
    output: value(view.output),
    partialOutput: value(view.partial_output),
    error: view.error ? { code: view.error.code, message: view.error.message, type: view.error.type, retryable: view.error.retryable, details: object(view.error.details) } : undefined,
    execution: object(view.execution),
    position: view.position,
    approval: object(view.approval),
  });
}

/** The request's caller; a credential that does not pass is the refusal REST would give. */
async function callerOf(env: Env, ctx: HandlerContext): Promise<Caller> {
  try {
    return await authenticate(env, ctx.requestHeader.get("authorization"));
  } catch (err) {
    if (err instanceof RuntimeError) throw refusalError(err.toBody());
    throw err;
  }
}

function envelope(req: InvokeRequest, mode: "sync" | "async", stream = false): Record<string, unknown> {
  return {
    tool: req.tool,
    // proto3 cannot tell an empty input from none: an unset input is the empty object.
    input: req.input ? toJson(ValueSchema, req.input) : {},
    mode,
    ...(stream ? { stream: true } : {}),
    ...(req.version ? { version: req.version } : {}),
    ...(req.provider ? { provider: req.provider } : {}),
    ...(req.context ? { context: req.context } : {}),
    ...(req.idempotencyKey ? { idempotency_key: req.idempotencyKey } : {}),
    ...(req.limits && (req.limits.timeoutMs || req.limits.maxOutputBytes)
      ? { limits: { ...(req.limits.timeoutMs ? { timeout_ms: req.limits.timeoutMs } : {}), ...(req.limits.maxOutputBytes ? { max_output_bytes: req.limits.maxOutputBytes } : {}) } }
      : {}),
  };
}

function routes(env: Env, waitUntil: (p: Promise<unknown>) => void) {
  const context = async (ctx: HandlerContext): Promise<CallContext> => ({
    env,
    caller: await callerOf(env, ctx),
    face: "connect",
    acceptedAt: Date.now(),
    trace: traceFrom(ctx.requestHeader.get("traceparent")),
    waitUntil,
  });

  return createConnectRouter({ grpc: false, grpcWeb: true, connect: true }).service(ToolRuntimeService, {
    async invoke(req, ctx) {
      const answer = valueOf(await execute(await context(ctx), envelope(req, "sync")));
      if (answer.kind !== "finished") throw new ConnectError(`unexpected answer ${answer.kind}`, Code.Internal);
      return executionMessage(answer.view);
    },
    async *invokeStream(req, ctx) {
      const answer = valueOf(await execute(await context(ctx), envelope(req, "async", true)));
      if (answer.kind !== "stream") throw new ConnectError(`unexpected answer ${answer.kind}`, Code.Internal);
      // The service streams event objects; here each becomes a message.
      for await (const e of answer.events) {
        yield create(ExecutionEventSchema, { seq: BigInt(e.seq), type: e.type, at: new Date(e.at).toISOString(), data: value(e.data) });
      }
    },
    async getExecution(req, ctx) {
      return executionMessage(valueOf(await get({ env, caller: await callerOf(env, ctx) }, req.executionId)));
    },
    async cancel(req, ctx) {
      return executionMessage(valueOf(await cancel({ env, caller: await callerOf(env, ctx) }, req.executionId, req.graceMs)));
    },
    async approve(req, ctx) {
      return executionMessage(valueOf(await decide({ env, caller: await callerOf(env, ctx) }, req.executionId, "approved", req.reason || undefined)));
    },
    async reject(req, ctx) {
      return executionMessage(valueOf(await decide({ env, caller: await callerOf(env, ctx) }, req.executionId, "rejected", req.reason || undefined)));
    },
    async listApprovals(_req, ctx) {
      const list = valueOf(await approvals({ env, caller: await callerOf(env, ctx) }));
      return create(ListApprovalsResponseSchema, { approvals: list.approvals.map((a) => object(a)!) });
    },
    async listTools(_req, ctx) {
      const list = valueOf(await toolList(env, await callerOf(env, ctx), waitUntil));
      return create(ListToolsResponseSchema, {
        tools: list.tools.map((t) => ({ name: t.name, activeVersion: t.active_version, versions: t.versions, description: t.description })),
      });
    },
  });
}

/** Serves one Connect or gRPC-Web request; native gRPC gets a clear trailers-only refusal. */
export async function serveConnect(request: Request, env: Env, waitUntil: (p: Promise<unknown>) => void): Promise<Response> {
  const type = (request.headers.get("content-type") ?? "").toLowerCase();
  if (/^application\/grpc(\+proto|\+json)?(;|$)/.test(type)) {
    return new Response(null, {
      status: 200,
      headers: {
        "content-type": "application/grpc",
        "grpc-status": String(Code.Unimplemented),
        "grpc-message": encodeURIComponent("native gRPC needs HTTP trailers, which Workers cannot send; use gRPC-Web or Connect at the same path"),
      },
    });
  }
  const path = new URL(request.url).pathname;
  const handler = routes(env, waitUntil).handlers.find((h) => h.requestPath === path);
  if (!handler) return new Response(JSON.stringify({ code: "unimplemented", message: `no method ${path}` }), { status: 404, headers: { "content-type": "application/json" } });
  return createFetchHandler(handler)(request);
}
