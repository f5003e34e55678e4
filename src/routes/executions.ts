/**
 * The execution endpoints (docs/contract.md#routes): the REST face of the execution service. It reads and decodes
 * the body (JSON or MessagePack, within the size limits), takes the caller from the
 * credential, and renders the service's answers; it decides nothing else.
 */
import { Hono, type Context } from "hono";
import type { AppEnv } from "../app-env.ts";
import { decodeBody, reply } from "../codec/negotiate.ts";
import { loadConfig } from "../config.ts";
import type { Outcome } from "../contract.ts";
import { RuntimeError } from "../errors.ts";
import { httpStatusOf } from "../execution/record.ts";
import { approvals, cancel, decide, events, execute, get, list, type CallAnswer } from "../execution/service.ts";
import { readBody } from "../codec/request-body.ts";
import { payloadLimit } from "../policy/limits.ts";
import type { DeprecationNotice } from "../registry/catalog.ts";
import { parseFilters } from "../audit/queries.ts";
import { traceFrom, traceparentOf } from "../audit/trace.ts";
import { resumeAfter, sseStream, SSE_HEADERS } from "../stream/sse.ts";
import { refusalResponse } from "./refusal.ts";

export const executions = new Hono<AppEnv>();

executions.post("/", async (c) => {
  const acceptedAt = Date.now();
  const caller = c.get("caller");
  const config = loadConfig(c.env);
  // Stage 1: the body, within the system's and the tenant's payload limit, before it is parsed.
  const body = await readBody(c.req.raw, payloadLimit(config, caller.tenant));
  const envelope = decodeBody(body, c.req.header("content-type") ?? null);
  const trace = traceFrom(c.req.header("traceparent"));
  const outcome = await execute(
    {
      env: c.env,
      caller,
      face: "rest",
      acceptedAt,
      trace,
      waitUntil: (p) => c.executionCtx.waitUntil(p),
      requestBytes: body.byteLength,
    },
    envelope,
  );
  if (!outcome.ok) return refusalResponse(c, outcome.error);
  return answer(c, outcome.value, { traceparent: traceparentOf(trace) });
});

/** The execution index: the caller's tenant's executions, newest first. */
executions.get("/", async (c) => {
  return render(
    c,
    await list(
      { env: c.env, caller: c.get("caller") },
      parseFilters((name) => c.req.query(name)),
    ),
  );
});

executions.get("/:id", async (c) => render(c, await get({ env: c.env, caller: c.get("caller") }, c.req.param("id"))));

executions.get("/:id/stream", async (c) => {
  const after = resumeAfter(c.req.header("last-event-id"), c.req.query("after"));
  if (after === null)
    throw new RuntimeError("invalid_request", "Last-Event-ID and ?after= must be a non-negative integer", {
      field: "after",
    });
  const outcome = await events({ env: c.env, caller: c.get("caller") }, c.req.param("id"), after);
  if (!outcome.ok) return refusalResponse(c, outcome.error);
  // Resumed past the terminal event: nothing more will ever come (EventSource stops on 204).
  if (outcome.value.kind === "ended") return c.body(null, 204);
  return new Response(sseStream(outcome.value.events), { headers: SSE_HEADERS });
});

executions.post("/:id/cancel", async (c) => {
  const grace = await cancelBody(c.req.raw, c.req.header("content-type") ?? null);
  return render(c, await cancel({ env: c.env, caller: c.get("caller") }, c.req.param("id"), grace));
});

// A person with the approver role decides on a call that awaits approval.
executions.post("/:id/approve", async (c) => {
  const reason = await reasonBody(c.req.raw, c.req.header("content-type") ?? null);
  return render(c, await decide({ env: c.env, caller: c.get("caller") }, c.req.param("id"), "approved", reason));
});

executions.post("/:id/reject", async (c) => {
  const reason = await reasonBody(c.req.raw, c.req.header("content-type") ?? null);
  return render(c, await decide({ env: c.env, caller: c.get("caller") }, c.req.param("id"), "rejected", reason));
});

/** GET /v1/approvals: the caller's tenant's calls waiting for a person (approvers only). */
export const approvalList = new Hono<AppEnv>();
approvalList.get("/", async (c) => render(c, await approvals({ env: c.env, caller: c.get("caller") })));

function render<T>(c: Context<AppEnv>, outcome: Outcome<T>): Response {
  return outcome.ok ? reply(c, outcome.value) : refusalResponse(c, outcome.error);
}

function answer(c: Context<AppEnv>, a: CallAnswer, base: Record<string, string>): Response {
  switch (a.kind) {
    case "dry_run":
      return reply(c, a.report);
    case "accepted": {
      // docs/contract.md#modes: answer at once; the execution object runs the call with nobody waiting.
      const location = `/v1/executions/${a.execution_id}`;
      return reply(c, { execution_id: a.execution_id, status: a.status }, 202, {
        ...headersOf(a, base),
        Location: location,
      });
    }
    case "stream": {
      // docs/contract.md#streaming: the same request, answered as the execution's event stream.
      const location = `/v1/executions/${a.execution_id}`;
      return new Response(sseStream(a.events), {
        headers: { ...SSE_HEADERS, ...headersOf(a, base), location, "x-execution-id": a.execution_id },
      });
    }
    case "finished":
      return reply(c, a.view, httpStatusOf(a.view), headersOf(a, base));
  }
}

function headersOf(
  a: { replayed: boolean; deprecation?: DeprecationNotice },
  base: Record<string, string>,
): Record<string, string> {
  // A duplicate of a keyed call: the original execution, marked as a replay (docs/contract.md#idempotency).
  return { ...base, ...deprecationHeaders(a.deprecation), ...(a.replayed ? { "Idempotent-Replayed": "true" } : {}) };
}

/** Optional body `{"grace_ms": n}` in JSON or MessagePack, like every other body. */
async function cancelBody(request: Request, contentType: string | null): Promise<unknown> {
  const body = await readBody(request, 1024);
  if (body.byteLength === 0) return undefined;
  const value = decodeBody(body, contentType);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new RuntimeError("invalid_request", "cancel body must be an object");
  for (const key of Object.keys(value)) {
    if (key !== "grace_ms")
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  }
  return (value as { grace_ms?: unknown }).grace_ms;
}

/** Optional body `{"reason": "…"}` of approve and reject (a rejection needs one: the service says so). */
async function reasonBody(request: Request, contentType: string | null): Promise<unknown> {
  const body = await readBody(request, 4096);
  if (body.byteLength === 0) return undefined;
  const value = decodeBody(body, contentType);
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new RuntimeError("invalid_request", "the body must be an object");
  for (const key of Object.keys(value)) {
    if (key !== "reason")
      throw new RuntimeError("invalid_request", `unknown field ${JSON.stringify(key)}`, { field: key });
  }
  return (value as { reason?: unknown }).reason;
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
