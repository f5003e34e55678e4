/**
 * docs/contract.md#retention as a caller meets it: a finished execution answers GET /v1/executions/{id} for
 * the retention window, then 404 — whether it ran at the edge (its record in the audit
 * store) or in an execution object (deleted by its own alarm). The Worker runs here with a
 * retention of RETENTION_MS (EXECUTION_RETENTION_MS is deployment configuration; the shipped
 * 24 h would not end within a test), and the test waits, bounded, for the 404.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";

/** Long enough that the first GET lands inside the window even on a busy machine. */
const RETENTION_MS = 6_000;
const limits = env.TENANT_LIMITS as unknown as { default: Record<string, unknown> };
/** The shipped configuration with a short retention (and keys no longer-lived than it: src/config.ts refuses that). */
const shortLived = {
  ...env,
  EXECUTION_RETENTION_MS: String(RETENTION_MS),
  TENANT_LIMITS: { ...limits, default: { ...limits.default, idempotency_ttl_ms: RETENTION_MS } },
} as unknown as Env;

const auth = { authorization: `Bearer ${env.DEV_API_KEY}` };

async function request(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const ctx = createExecutionContext();
  const init: RequestInit = {
    method,
    headers: { ...auth, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  };
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, init) as Request<unknown, IncomingRequestCfProperties>,
    shortLived,
    ctx,
  );
  const json = await res.json();
  await waitOnExecutionContext(ctx);
  return { status: res.status, json };
}

/** Polls GET until `status` (bounded: the retention window plus the alarm's and the store's own delays). */
async function getUntil(
  id: string,
  status: number,
  withinMs = RETENTION_MS + 20_000,
): Promise<{ status: number; json: any }> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const res = await request("GET", `/v1/executions/${id}`);
    if (res.status === status || Date.now() > deadline) return res;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("retention (docs/contract.md#retention)", () => {
  it("answers a fast-path execution's id until its retention is over, then 404 execution_not_found", async () => {
    const done = await request("POST", "/v1/executions", {
      tool: "math.evaluate",
      input: { expression: "2 + 2" },
      limits: { timeout_ms: 20_000 },
    });
    expect(done.status).toBe(200);
    const id = done.json.execution_id;
    expect(id).toMatch(/^exec_e/); // ran at the edge
    expect(await request("GET", `/v1/executions/${id}`)).toMatchObject({
      status: 200,
      json: { execution_id: id, output: { value: 4 } },
    });
    const gone = await getUntil(id, 404);
    expect(gone).toMatchObject({ status: 404, json: { error: { code: "execution_not_found" } } });
  });

  it("answers an execution object's id until its retention alarm has deleted it, then 404 execution_not_found", async () => {
    const started = await request("POST", "/v1/executions", {
      tool: "lab.echo",
      mode: "async",
      input: { keep: "briefly" },
      limits: { timeout_ms: 20_000 },
    });
    expect(started.status).toBe(202);
    const id = started.json.execution_id;
    expect(id).toMatch(/^exec_[0-9a-f]{64}$/); // an execution object
    let finished = await request("GET", `/v1/executions/${id}`);
    for (let i = 0; i < 100 && finished.json.status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      finished = await request("GET", `/v1/executions/${id}`);
    }
    expect(finished).toMatchObject({
      status: 200,
      json: { execution_id: id, status: "succeeded", output: { keep: "briefly" } },
    });
    const gone = await getUntil(id, 404);
    expect(gone).toMatchObject({ status: 404, json: { error: { code: "execution_not_found" } } });
  });
});
