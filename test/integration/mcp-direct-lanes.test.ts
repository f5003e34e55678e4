/**
 * Whole requests to `/mcp` through the direct lane (src/mcp/direct.ts) and through the SDK alone
 * (answerMcp's lanes), against the real service in workerd: the same status, headers and body,
 * but for the execution's id and how long a refusal says to wait. Each lane has a key of its own
 * (one tenant family), so neither spends the other's tokens. What the lane writes, beside the
 * SDK, case by case: mcp-direct.test.ts.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMcp, type McpLanes } from "../../src/mcp/handler.ts";
import { mintKey, send, withTenantLimits } from "./worker-http.ts";

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
};
/** A roomy budget: the first call of a file also loads the Worker (vitest.config.ts). */
const ROOMY = { "io.tool-runtime/limits": { timeout_ms: 20_000 } };
const DIRECT: McpLanes = { direct: true, sdk: true };
const SDK_ONLY: McpLanes = { direct: false, sdk: true };
const DIRECT_ONLY: McpLanes = { direct: true, sdk: false };
/** Room for thousands of calls, but two of each tool: the third of a tool is refused (429 tool_rate, Retry-After). */
const e = withTenantLimits({
  "lanes-*": { requests_per_second: 1000, burst: 2000, tool_requests_per_second: 0.001, tool_burst: 2 },
});
const unique = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

interface Asked {
  method: string;
  params?: Record<string, unknown>;
  bundle?: string;
}

interface Written {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** One 2026-07-28 request through the chosen lanes; background work is awaited before the answer is read. */
async function through(key: string, asked: Asked, lanes: McpLanes): Promise<Written> {
  const { _meta, ...rest } = (asked.params ?? {}) as { _meta?: Record<string, unknown>; name?: string };
  const request = new Request(`http://localhost/mcp${asked.bundle ? `/${asked.bundle}` : ""}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": asked.method,
      ...(typeof rest.name === "string" ? { "mcp-name": rest.name } : {}),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 3,
      method: asked.method,
      params: { ...rest, _meta: { ...ENVELOPE, ..._meta } },
    }),
  });
  const ctx = createExecutionContext();
  const res = await answerMcp(request, e, (p) => ctx.waitUntil(p), asked.bundle, lanes);
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers, text };
}

/** An answer with what differs between two runs blanked: the execution's id, and the wait a refusal names. */
function comparable(answer: Written): Written {
  let text = answer.text;
  for (const id of text.match(/"io\.tool-runtime\/execution_id":"([^"]+)"/g) ?? [])
    text = text.replaceAll(id.slice(id.lastIndexOf(':"') + 2, -1), "<id>");
  text = text.replace(/"retry_after_ms":\d+/g, '"retry_after_ms":0');
  const headers = { ...answer.headers, ...(answer.headers["retry-after"] ? { "retry-after": "<s>" } : {}) };
  return { ...answer, text, headers };
}

/** Asked through both lanes (two keys of one tenant family): the answers, the direct lane's first. */
async function bothLanes(asked: Asked, keys: [string, string]): Promise<[Written, Written]> {
  return [comparable(await through(keys[0], asked, DIRECT)), comparable(await through(keys[1], asked, SDK_ONLY))];
}

const keyPair = async (): Promise<[string, string]> => [
  await mintKey(e, unique("lanes")),
  await mintKey(e, unique("lanes")),
];

describe("the direct lane and the SDK, whole requests", () => {
  const taken: [string, Asked][] = [
    [
      "an echo",
      { method: "tools/call", params: { name: "lab.echo", arguments: { a: 1, b: [true, null] }, _meta: ROOMY } },
    ],
    ["a call without arguments", { method: "tools/call", params: { name: "lab.echo", _meta: ROOMY } }],
    [
      "a number",
      { method: "tools/call", params: { name: "math.evaluate", arguments: { expression: "6 * 7" }, _meta: ROOMY } },
    ],
    [
      "a tool's error",
      { method: "tools/call", params: { name: "lab.reject", arguments: { code: "not_ready" }, _meta: ROOMY } },
    ],
    [
      "an output off its schema",
      { method: "tools/call", params: { name: "lab.bad_output", arguments: {}, _meta: ROOMY } },
    ],
    [
      "input off its schema",
      { method: "tools/call", params: { name: "lab.reject", arguments: { code: "nope" }, _meta: ROOMY } },
    ],
    ["no such tool", { method: "tools/call", params: { name: "no.such_tool", arguments: {}, _meta: ROOMY } }],
    [
      "an unknown _meta option",
      { method: "tools/call", params: { name: "lab.echo", _meta: { "io.tool-runtime/speed": 1 } } },
    ],
    ["the list", { method: "tools/list" }],
  ];

  it.each(taken)("%s: the direct lane answers it, as the SDK does", async (_, asked) => {
    const keys = await keyPair();
    expect((await through(await mintKey(e, unique("lanes")), asked, DIRECT_ONLY)).status).not.toBe(501);
    const [direct, sdk] = await bothLanes(asked, keys);
    expect(direct).toEqual(sdk);
  });

  it("a call refused for its tool's rate: the same error, status and Retry-After", async () => {
    const keys = await keyPair();
    const asked = {
      method: "tools/call",
      params: { name: "math.evaluate", arguments: { expression: "1" }, _meta: ROOMY },
    };
    for (let i = 0; i < 2; i++) {
      const [direct, sdk] = await bothLanes(asked, keys);
      expect(direct).toEqual(sdk);
    }
    const [direct, sdk] = await bothLanes(asked, keys);
    expect(direct.text).toContain('"code":-32029');
    expect(direct.headers["retry-after"]).toBe("<s>");
    expect(direct).toEqual(sdk);
  });

  it("a slow tool and a call with a progress token are the SDK's: the lane leaves them, and the SDK runs them", async () => {
    const slow = { method: "tools/call", params: { name: "lab.burst", arguments: { count: 1 }, _meta: ROOMY } };
    const progress = {
      method: "tools/call",
      params: { name: "lab.echo", arguments: {}, _meta: { ...ROOMY, progressToken: 1 } },
    };
    for (const asked of [slow, progress]) {
      const key = await mintKey(e, unique("lanes"));
      expect((await through(key, asked, DIRECT_ONLY)).status).toBe(501);
      const answer = await through(key, asked, DIRECT);
      expect(answer.status).toBe(200);
      expect(answer.text).toContain('"io.tool-runtime/status":"succeeded"');
    }
  });
});

describe("at a bundle", () => {
  const bundle = unique("lanes-bundle");
  beforeAll(async () => {
    const put = await send(env, "PUT", `/v1/admin/bundles/${bundle}`, env.DEV_ADMIN_KEY, { tools: ["lab.echo"] });
    expect(put.status).toBe(201);
  });
  afterAll(async () => void (await send(env, "DELETE", `/v1/admin/bundles/${bundle}`, env.DEV_ADMIN_KEY)));

  it.each([
    ["its list", { method: "tools/list" }],
    ["a call of its tool", { method: "tools/call", params: { name: "lab.echo", arguments: { x: 1 }, _meta: ROOMY } }],
    [
      "a call of a tool outside it",
      { method: "tools/call", params: { name: "math.evaluate", arguments: { expression: "1" }, _meta: ROOMY } },
    ],
  ] as [string, Omit<Asked, "bundle">][])("%s: the same answer from both lanes", async (_, asked) => {
    const [direct, sdk] = await bothLanes({ ...asked, bundle }, await keyPair());
    expect(direct).toEqual(sdk);
    expect(direct.status).toBe(200);
  });
});
