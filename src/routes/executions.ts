/** TRT-002 §3 execution endpoints. Wiring only: the stages live in src/pipeline/. */
import { Hono } from "hono";
import { resolveCaller } from "../caller.ts";
import { loadConfig } from "../config.ts";
import type { Env } from "../env.ts";
import { RuntimeError } from "../errors.ts";
import { httpStatusOf } from "../pipeline/delivery.ts";
import { dispatch, executionStub } from "../pipeline/dispatch.ts";
import { decodeBody, parseExecutionRequest, readBody } from "../pipeline/initiation.ts";
import { planExecution } from "../pipeline/plan.ts";

export const executions = new Hono<{ Bindings: Env }>();

executions.post("/", async (c) => {
  const acceptedAt = Date.now();
  const caller = resolveCaller(c.env);
  // Stage 1: initiation.
  const body = await readBody(c.req.raw, loadConfig(c.env).maxRequestBytes);
  const request = parseExecutionRequest(decodeBody(body, c.req.header("content-type") ?? null));
  // Stages 2-5, then 6-7 in the execution object.
  const plan = await planExecution(c.env, caller, request, acceptedAt, (p) => c.executionCtx.waitUntil(p));
  const view = await dispatch(c.env, plan);
  if (plan.mode === "async") {
    // TRT-002 §6: answer at once; the execution object runs the call with nobody waiting.
    c.header("Location", `/v1/executions/${view.execution_id}`);
    return c.json({ execution_id: view.execution_id, status: view.status }, 202);
  }
  return c.json(view, httpStatusOf(view) as 200);
});

executions.get("/:id", async (c) => {
  const id = c.req.param("id");
  const view = await executionStub(c.env, id)?.view(resolveCaller(c.env).tenant);
  // Unknown, expired and other tenants' ids all answer the same (DESIGN.md 7).
  if (!view) throw new RuntimeError("execution_not_found", `no execution ${id}`, { execution_id: id });
  return c.json(view);
});
