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
import { loadConfig } from "../config.ts";
import type { ExecutionView } from "../contract.ts";
import type { Env } from "../env.ts";
import { ERROR_TABLE, RuntimeError, type ErrorCode } from "../errors.ts";
import { ExecutionEventSchema, ExecutionSchema, ListToolsResponseSchema, ToolRuntimeService, type InvokeRequest } from "../gen/tool_runtime/v1/runtime_pb.ts";
import { executionStub, expectExecution } from "../pipeline/dispatch.ts";
import { parseExecutionRequest } from "../pipeline/initiation.ts";
import { planExecution } from "../pipeline/plan.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { fromJson as parseStoredJson, toJson as storedJson } from "../codec/bytes.ts";
import { readSse } from "../../client/sse.ts";

export const CONNECT_PATH_PREFIX = `/${ToolRuntimeService.typeName}/`;

/** TRT-002 codes → Connect codes, by HTTP status as the Connect protocol maps them. */
function connectCode(code: ErrorCode): Code {
  switch (ERROR_TABLE[code].status) {
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

function asConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof RuntimeError) {
    const meta = new Headers({ "trt-error-code": err.code, "trt-retryable": String(err.retryable) });
    if (err.details) meta.set("trt-error-details", JSON.stringify(err.details));
    return new ConnectError(err.message, connectCode(err.code), meta);
  }
  console.error(JSON.stringify({ msg: "connect call failed", error: String(err) }));
  return new ConnectError("the runtime failed while handling the call", Code.Internal, new Headers({ "trt-error-code": "internal", "trt-retryable": "false" }));
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
  });
}

function routes(env: Env) {
  const caller = (ctx: HandlerContext) => authenticate(env, ctx.requestHeader.get("authorization"));
  const request = (req: InvokeRequest, mode: "sync" | "async") =>
    parseExecutionRequest({
      tool: req.tool,
      // proto3 cannot tell an empty input from none: an unset input is the empty object.
      input: req.input ? toJson(ValueSchema, req.input) : {},
      mode,
      ...(req.version ? { version: req.version } : {}),
      ...(req.provider ? { provider: req.provider } : {}),
      ...(req.context ? { context: req.context } : {}),
      ...(req.idempotencyKey ? { idempotency_key: req.idempotencyKey } : {}),
      ...(req.limits && (req.limits.timeoutMs || req.limits.maxOutputBytes)
        ? { limits: { ...(req.limits.timeoutMs ? { timeout_ms: req.limits.timeoutMs } : {}), ...(req.limits.maxOutputBytes ? { max_output_bytes: req.limits.maxOutputBytes } : {}) } }
        : {}),
    });

  return createConnectRouter({ grpc: false, grpcWeb: true, connect: true }).service(ToolRuntimeService, {
    async invoke(req, ctx) {
      try {
        const { plan } = await planExecution(env, await caller(ctx), request(req, "sync"), Date.now());
        return executionMessage(expectExecution(await executionStub(env, plan.execution_id)!.execute(plan)).view);
      } catch (err) {
        throw asConnectError(err);
      }
    },
    async *invokeStream(req, ctx) {
      let stream: ReadableStream<Uint8Array>;
      try {
        const { plan } = await planExecution(env, await caller(ctx), request(req, "async"), Date.now());
        const result = expectExecution(await executionStub(env, plan.execution_id)!.executeStream(plan));
        if (!("stream" in result) || !result.stream) throw new RuntimeError("rate_limited", "this execution has as many stream subscribers as it serves", { reason: "subscribers" });
        stream = result.stream as ReadableStream<Uint8Array>;
      } catch (err) {
        throw asConnectError(err);
      }
      // The execution object frames SSE; the same events go out here as messages.
      for await (const message of readSse(stream)) {
        const e = parseStoredJson<{ seq: number; type: string; at: string; data: unknown }>(message.data);
        yield create(ExecutionEventSchema, { seq: BigInt(e.seq), type: e.type, at: e.at, data: value(e.data) });
      }
    },
    async getExecution(req, ctx) {
      try {
        const view = await executionStub(env, req.executionId)?.view((await caller(ctx)).tenant);
        if (!view) throw new RuntimeError("execution_not_found", `no execution ${req.executionId}`, { execution_id: req.executionId });
        return executionMessage(view);
      } catch (err) {
        throw asConnectError(err);
      }
    },
    async cancel(req, ctx) {
      try {
        const config = loadConfig(env);
        const grace = req.graceMs ?? config.cancelGraceMs;
        if (grace > config.maxCancelGraceMs) throw new RuntimeError("invalid_request", `grace_ms must be at most ${config.maxCancelGraceMs}`, { field: "grace_ms" });
        const view = await executionStub(env, req.executionId)?.cancel((await caller(ctx)).tenant, grace);
        if (!view) throw new RuntimeError("execution_not_found", `no execution ${req.executionId}`, { execution_id: req.executionId });
        return executionMessage(view);
      } catch (err) {
        throw asConnectError(err);
      }
    },
    async listTools(_req, ctx) {
      try {
        await caller(ctx);
        const snapshot = await getSnapshot(env);
        return create(ListToolsResponseSchema, {
          tools: Object.values(snapshot.tools).map((t) => ({
            name: t.name,
            activeVersion: t.active_version,
            versions: Object.keys(t.versions),
            description: t.versions[t.active_version][0].manifest.description,
          })),
        });
      } catch (err) {
        throw asConnectError(err);
      }
    },
  });
}

/** Serves one Connect or gRPC-Web request; native gRPC gets a clear trailers-only refusal. */
export async function serveConnect(request: Request, env: Env): Promise<Response> {
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
  const handler = routes(env).handlers.find((h) => h.requestPath === path);
  if (!handler) return new Response(JSON.stringify({ code: "unimplemented", message: `no method ${path}` }), { status: 404, headers: { "content-type": "application/json" } });
  return createFetchHandler(handler)(request);
}
