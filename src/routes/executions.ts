/** TRT-002 §3 execution endpoints. Wiring only: the stages live in src/pipeline/. */
import { reply } from "../codec/negotiate.ts";
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { httpStatusOf } from "../pipeline/delivery.ts";
import { dispatch, executionStub, expectExecution, type ExecutionRpc } from "../pipeline/dispatch.ts";
import { decodeBody, parseExecutionRequest, readBody } from "../pipeline/initiation.ts";
import { dryRun, planExecution } from "../pipeline/plan.ts";
import type { DeprecationNotice } from "../registry/catalog.ts";
import { forgetSnapshot } from "../registry/snapshot-cache.ts";
import { limitsFor } from "../policy/limits.ts";
import { resumeAfter } from "../stream/sse.ts";
import { listExecutions, parseFilters } from "../audit/queries.ts";
import { traceFrom, traceparentOf } from "../audit/trace.ts";

export const executions = new Hono<AppEnv>();

const PROVIDER_FAULTS = new Set(["provider_crashed", "timeout", "invalid_output", "sandbox_unavailable"]);

const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

executions.post("/", async (c) => {
  const acceptedAt = Date.now();
  const caller = c.get("caller");
  const config = loadConfig(c.env);
  // Stage 1: initiation, within the system's and the tenant's payload limit.
  const body = await readBody(c.req.raw, Math.min(config.maxRequestBytes, limitsFor(config.limits, caller.tenant).max_payload_bytes));
  const request = parseExecutionRequest(decodeBody(body, c.req.header("content-type") ?? null));
  if (request.mode === "dry_run") return reply(c, await dryRun(c.env, caller, request));
  // Stages 2-5, then 6-7 in the execution object.
  const trace = traceFrom(c.req.header("traceparent"));
  const { plan, deprecation } = await planExecution(c.env, caller, request, acceptedAt, (p) => c.executionCtx.waitUntil(p), trace);
  const headers: Record<string, string> = { ...deprecationHeaders(deprecation), traceparent: traceparentOf(trace) };
  const location = `/v1/executions/${plan.execution_id}`;
  const stub = executionStub(c.env, plan.execution_id)!;
  let raw;
  try {
    raw = request.stream ? await stub.executeStream(plan) : await dispatch(c.env, plan);
  } catch (err) {
    // The execution may exist and may have run: never "retryable" blind, and say where it is.
    console.error(JSON.stringify({ msg: "dispatch failed", execution_id: plan.execution_id, error: String(err) }));
    throw new RuntimeError("internal", "the runtime lost contact with the execution; look it up before calling again", { execution_id: plan.execution_id, location }, false);
  }
  const result = expectExecution(raw);
  // A duplicate of a keyed call: the original execution, marked as a replay (TRT-002 §11).
  if (result.kind === "replayed") headers["Idempotent-Replayed"] = "true";

  if (request.stream && "stream" in result && !result.stream) {
    throw new RuntimeError("rate_limited", "this execution has as many stream subscribers as it serves", { reason: "subscribers", retry_after_ms: 5_000, execution_id: plan.execution_id });
  }
  if (request.stream && "stream" in result && result.stream) {
    // TRT-002 §7: the same request, answered as the event stream of the execution.
    return new Response(result.stream as ReadableStream<Uint8Array>, { headers: { ...SSE_HEADERS, ...headers, location, "x-execution-id": plan.execution_id } });
  }
  const view = result.view;
  if (plan.mode === "async" && !result.stored) {
    // TRT-002 §6: answer at once; the execution object runs the call with nobody waiting.
    return reply(c, { execution_id: view.execution_id, status: view.status }, 202, { ...headers, Location: location });
  }
  // A provider failed, or a breaker's trial call ended: the registry has heard (the object
  // waits for that), so this isolate's next call should see the change, not a stale copy.
  if (view.attempts?.some((a) => PROVIDER_FAULTS.has(a.outcome)) || plan.providers[0]?.trial) forgetSnapshot();
  if (result.stored && c.get("format") === "json") {
    // Finished: the stored response, byte for byte, for the original and every replay.
    return new Response(result.stored.body, { status: result.stored.status, headers: { ...headers, "content-type": "application/json" } });
  }
  // MessagePack callers get the same view encoded as MessagePack (bytes stay bytes).
  return reply(c, view, httpStatusOf(view), headers);
});

/** The execution index: the caller's tenant's executions, newest first (fed by the audit pipeline). */
executions.get("/", async (c) => {
  if (!c.env.AUDIT_DB) throw new RuntimeError("internal", "no AUDIT_DB database is bound");
  const filters = parseFilters((name) => c.req.query(name));
  return reply(c, await listExecutions(c.env.AUDIT_DB, { ...filters, tenant: c.get("caller").tenant }));
});

executions.get("/:id", async (c) => {
  const view = await stubOf(c).view(c.get("caller").tenant);
  if (!view) throw notFound(c.req.param("id"));
  return reply(c, view);
});

executions.get("/:id/stream", async (c) => {
  const after = resumeAfter(c.req.header("last-event-id"), c.req.query("after"));
  if (after === null) throw new RuntimeError("invalid_request", "Last-Event-ID and ?after= must be a non-negative integer", { field: "after" });
  const subscription = await stubOf(c).subscribe(c.get("caller").tenant, after);
  if (subscription.kind === "not_found") throw notFound(c.req.param("id"));
  // Resumed past the terminal event: nothing more will ever come (EventSource stops on 204).
  if (subscription.kind === "ended") return c.body(null, 204);
  if (subscription.kind === "busy") throw new RuntimeError("rate_limited", "this execution has as many stream subscribers as it serves", { reason: "subscribers", retry_after_ms: 5_000 });
  return new Response(subscription.stream, { headers: SSE_HEADERS });
});

executions.post("/:id/cancel", async (c) => {
  const config = loadConfig(c.env);
  const graceMs = await cancelGrace(c.req.raw, config.cancelGraceMs, config.maxCancelGraceMs);
  const view = await stubOf(c).cancel(c.get("caller").tenant, graceMs);
  if (!view) throw notFound(c.req.param("id"));
  return reply(c, view);
});

/** The execution's object; an id that cannot be ours gets an object that knows nothing. */
function stubOf(c: Context<AppEnv>): ExecutionRpc {
  const stub = executionStub(c.env, c.req.param("id")!);
  if (!stub) throw notFound(c.req.param("id")!);
  return stub;
}

/** Unknown, expired and other tenants' ids all answer the same (DESIGN.md 7). */
function notFound(id: string | undefined): RuntimeError {
  return new RuntimeError("execution_not_found", `no execution ${id}`, { execution_id: id });
}

/** Optional body `{"grace_ms": n}`: 0 forces at once; more than the maximum is refused. */
async function cancelGrace(request: Request, fallback: number, max: number): Promise<number> {
  const text = new TextDecoder().decode(await readBody(request, 1024));
  if (text.trim() === "") return fallback;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RuntimeError("invalid_request", "cancel body is not valid JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new RuntimeError("invalid_request", "cancel body must be an object");
  for (const key of Object.keys(body)) {
    if (key !== "grace_ms") throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  }
  const grace = (body as { grace_ms?: unknown }).grace_ms;
  if (grace === undefined) return fallback;
  if (typeof grace !== "number" || !Number.isSafeInteger(grace) || grace < 0 || grace > max) {
    throw new RuntimeError("invalid_request", `grace_ms must be an integer from 0 to ${max}`, { field: "grace_ms", max });
  }
  return grace;
}

/** RFC 9745 Deprecation and RFC 8594 Sunset, and the replacement as a successor link. */
function deprecationHeaders(d: DeprecationNotice | undefined): Record<string, string> {
  if (!d) return {};
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(Date.parse(d.deprecated_at) / 1000)}`,
    Sunset: new Date(d.sunset).toUTCString(),
  };
  if (d.replacement) headers.Link = `</v1/tools/${d.replacement.split("@")[0]}>; rel="successor-version"`;
  return headers;
}
