/**
 * What MCP puts in `_meta` and beside a result, in workerd (docs/contract.md#mcp): the cache
 * hints of a 2026-07-28 `tools/list` (and none on 2025-11-25), and a call's
 * `_meta.traceparent` continuing the caller's trace into the execution — the trace the provider
 * is handed (`lab.context` answers with it) and the audit record keeps.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mcpBody, mintKey } from "./worker-http.ts";

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A roomy budget: the first call of a file also loads the Worker (vitest.config.ts). */
const ROOMY = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One POST to /mcp; an SSE answer's last message is its body. */
async function post(key: string, message: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await exports.default.fetch("http://localhost/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${key}`,
      ...headers,
    },
    body: JSON.stringify(message),
  });
  return { status: res.status, headers: res.headers, body: await mcpBody(res) };
}

/** A 2026-07-28 request: the envelope in `_meta`, the standard headers. */
function modern(
  key: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) {
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown>; name?: string };
  return post(
    key,
    { jsonrpc: "2.0", id: 1, method, params: { ...rest, _meta: { ...ENVELOPE, ..._meta } } },
    {
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(rest.name ? { "mcp-name": rest.name } : {}),
      ...headers,
    },
  );
}

/** A 2025-11-25 session: `initialize`, `notifications/initialized`, then one request. */
async function legacy(key: string, method: string, params: Record<string, unknown> = {}): Promise<Answer> {
  const init = await post(key, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "workerd", version: "1" } },
  });
  expect(init.status).toBe(200);
  const headers = { "mcp-protocol-version": "2025-11-25", "mcp-session-id": init.headers.get("mcp-session-id")! };
  await post(key, { jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  return post(key, { jsonrpc: "2.0", id: 1, method, params }, headers);
}

/** The trace id of the `traceparent` the provider was handed. */
function traceIdOf(answer: Answer): string {
  expect(answer.body.result.isError).toBeFalsy();
  const traceparent: string = answer.body.result.structuredContent.traceparent;
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/);
  return traceparent.split("-")[1];
}

/** The audit record of one execution, polled until the queue consumer has written it (bounded). */
async function auditTraceOf(tenant: string, executionId: string): Promise<string | null> {
  const admin = { authorization: `Bearer ${env.DEV_ADMIN_KEY}` };
  for (let i = 0; i < 150; i++) {
    const res = await exports.default.fetch(`http://localhost/v1/audit?tenant=${tenant}`, { headers: admin });
    const records = ((await res.json()) as { records: { execution_id: string; trace_id: string | null }[] }).records;
    const record = records.find((r) => r.execution_id === executionId);
    if (record) return record.trace_id;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no audit record of ${executionId}`);
}

describe("tools/list cache hints", () => {
  it("says on 2026-07-28 that the list is the caller's own and fresh for one registry snapshot TTL", async () => {
    const res = await modern(await mintKey(env, `mcp-meta-${crypto.randomUUID()}`), "tools/list");
    expect(res.status).toBe(200);
    expect(res.body.result.tools.length).toBeGreaterThan(0);
    expect({ ttlMs: res.body.result.ttlMs, cacheScope: res.body.result.cacheScope }).toEqual({
      ttlMs: Number(env.REGISTRY_SNAPSHOT_TTL_MS),
      cacheScope: "private",
    });
  });

  it("leaves a 2025-11-25 list as that revision has it: no cache fields", async () => {
    const res = await legacy(await mintKey(env, `mcp-meta-${crypto.randomUUID()}`), "tools/list");
    expect(res.status).toBe(200);
    expect(res.body.result.tools.length).toBeGreaterThan(0);
    expect(res.body.result).not.toHaveProperty("ttlMs");
    expect(res.body.result).not.toHaveProperty("cacheScope");
  });
});

describe("trace context in _meta", () => {
  const callContext = (traceparent: string) => ({
    name: "lab.context",
    arguments: {},
    _meta: { ...ROOMY, traceparent, tracestate: "vendor=opaque" },
  });

  it("continues the caller's trace: the provider's parent and the audit record carry its trace id", async () => {
    const tenant = `mcp-meta-${crypto.randomUUID()}`;
    const key = await mintKey(env, tenant);
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await modern(key, "tools/call", callContext(`00-${traceId}-00f067aa0ba902b7-01`));
    expect(res.status).toBe(200);
    expect(traceIdOf(res)).toBe(traceId);
    // The runtime's own span, not the caller's.
    expect(res.body.result.structuredContent.traceparent.split("-")[2]).not.toBe("00f067aa0ba902b7");
    const executionId = res.body.result._meta["io.tool-runtime/execution_id"];
    expect(await auditTraceOf(tenant, executionId)).toBe(traceId);
  });

  it("takes the message's trace over the HTTP request's header, on both eras", async () => {
    const key = await mintKey(env, `mcp-meta-${crypto.randomUUID()}`);
    const inMeta = "0af7651916cd43dd8448eb211c80319c";
    const inHeader = "1bf7651916cd43dd8448eb211c80319d";
    const res = await modern(key, "tools/call", callContext(`00-${inMeta}-b7ad6b7169203331-01`), {
      traceparent: `00-${inHeader}-b7ad6b7169203331-01`,
    });
    expect(traceIdOf(res)).toBe(inMeta);
    const old = await legacy(key, "tools/call", callContext(`00-${inMeta}-b7ad6b7169203331-01`));
    expect(traceIdOf(old)).toBe(inMeta);
  });

  it("ignores an invalid traceparent as REST does: the call runs, in the header's trace or a new one", async () => {
    const key = await mintKey(env, `mcp-meta-${crypto.randomUUID()}`);
    const inHeader = "2cf7651916cd43dd8448eb211c80319e";
    for (const invalid of ["garbage", `00-${"0".repeat(32)}-b7ad6b7169203331-01`, "00-abc-def-01"]) {
      const withHeader = await modern(key, "tools/call", callContext(invalid), {
        traceparent: `00-${inHeader}-b7ad6b7169203331-01`,
      });
      expect(withHeader.status).toBe(200);
      expect(traceIdOf(withHeader)).toBe(inHeader);
      const alone = await modern(key, "tools/call", callContext(invalid));
      expect(alone.status).toBe(200);
      expect(traceIdOf(alone)).not.toBe(inHeader);
    }
  });
});
