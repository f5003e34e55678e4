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
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createConnectRouter, createContextValues, type HandlerContext } from "@connectrpc/connect";
import { universalServerRequestFromFetch, universalServerResponseToFetch } from "@connectrpc/connect/protocol";
import { authenticate } from "../auth/authenticate.ts";
import { RuntimeError } from "../errors.ts";
import {
  ExecutionEventSchema,
  ListApprovalsResponseSchema,
  ListToolsResponseSchema,
  ToolRuntimeService,
} from "../gen/tool_runtime/v1/runtime_pb.ts";
import { traceFrom } from "../audit/trace.ts";
import { approvals, cancel, decide, execute, get, type CallContext } from "../execution/service.ts";
import { toolList } from "../execution/tool-listing.ts";
import { cappedBody } from "../codec/request-body.ts";
import { loadConfig } from "../config.ts";
import { MAX_INPUT_DEPTH } from "../codec/input-depth.ts";
import { payloadLimit } from "../policy/limits.ts";
import { CONNECT_PATH_PREFIX } from "./path.ts";
import { checkJsonInput, inputOf } from "./input.ts";
import { envelope, executionMessage, finishedMessage, object, refusalError, value, valueOf } from "./messages.ts";
import { AUTH_FAILURE, CALLER, callerOf, gate, INPUT_REFUSAL } from "./request-gate.ts";

export { CONNECT_PATH_PREFIX };

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
