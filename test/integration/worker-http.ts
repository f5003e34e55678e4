/**
 * Requests to the Worker's own `fetch` in workerd, with an environment the test chooses (the
 * bound one with a test's limits, say), and keys minted through the admin API as an operator
 * would. Background work a request leaves (`waitUntil`) is awaited before the answer is handed back.
 */
import { createExecutionContext, createMessageBatch, getQueueResult, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { AuditMessage } from "../../src/audit/messages.ts";
import worker from "../../src/index.ts";

export interface Answer {
  status: number;
  json: any;
  headers: Headers;
}

/** `method path` as `key` (no key: no authorization header), a JSON body when given; `raw` sends bytes as they are. */
export async function send(
  e: Env,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  raw?: string,
): Promise<Answer> {
  const ctx = createExecutionContext();
  const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  if (payload !== undefined) headers["content-type"] = "application/json";
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, { method, headers, body: payload }) as Request<
      unknown,
      IncomingRequestCfProperties
    >,
    e,
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  const json = res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : text;
  return { status: res.status, json, headers: res.headers };
}

/** A fresh key of `tenant`, minted by the operator; `role` and the rest as the admin API takes them. */
export async function mintKey(e: Env, tenant: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await send(e, "POST", "/v1/admin/keys", env.DEV_ADMIN_KEY, {
    tenant,
    agent: "dev-agent",
    channels: ["*"],
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.json.key;
}

/** The bound environment with test-only tenant families added to its TENANT_LIMITS. */
export function withTenantLimits(families: Record<string, Record<string, number>>): Env {
  const limits = env.TENANT_LIMITS as unknown as { default: Record<string, unknown>; tenants?: object };
  return Object.assign({}, env, { TENANT_LIMITS: { ...limits, tenants: { ...(limits.tenants ?? {}), ...families } } });
}

/**
 * An MCP answer's body: the JSON itself, or the last `data:` line of an event stream (the
 * JSON-RPC response ends the stream).
 */
export async function mcpBody(res: Response): Promise<any> {
  const text = await res.text();
  const data = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trim())
        .at(-1)
    : text;
  return data ? JSON.parse(data) : undefined;
}

/** The bound environment with `db` as its one audit shard (no AUDIT_DB_1, …: src/audit/shards.ts). */
export function withAuditDb(e: Env, db: D1Database): Env {
  const only: Record<string, unknown> = { ...e, AUDIT_DB: db };
  for (const name of Object.keys(only)) if (/^AUDIT_DB_\d+$/.test(name)) delete only[name];
  return only as unknown as Env;
}

/** Hands `messages` to the runtime Worker's own audit queue handler, as the queue would deliver them. */
export async function queueAudit(messages: AuditMessage[], e: Env = env) {
  const batch = createMessageBatch(
    "tool-runtime-audit",
    messages.map((body, i) => ({ id: `m${i}-${crypto.randomUUID()}`, timestamp: Date.now(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<AuditMessage>, e);
  return getQueueResult(batch, ctx);
}

/** The same, for a delivery that must be written whole (nothing handed back to the queue). */
export async function deliverAudit(messages: AuditMessage[], e: Env = env): Promise<void> {
  expect((await queueAudit(messages, e)).retryBatch.retry).toBe(false);
}
