/**
 * MCP helpers for the e2e suite: the official client (`@modelcontextprotocol/client`) on either
 * protocol era, and raw JSON-RPC POSTs for what that client cannot drive (2.4.0 rejects a
 * `resultType: "task"` answer, and has no 2025-11-25 task methods), built the way the
 * transport spec says: headers `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`; the
 * per-request `_meta` envelope on 2026-07-28; `initialize` then a session id on 2025.
 */
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import { asAdmin, baseUrl, bearer, call, DEV_KEY } from "./http.ts";

export const MCP_URL = `${baseUrl}/mcp`;
/** The repository root: the conformance suite runs from it. */
export const ROOT = join(import.meta.dirname, "..", "..");
/** The official conformance suite's command line, run on the `node` devDependency's binary (it needs Node 22: `fs.globSync`). */
export const CONFORMANCE_SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
export const NODE22 = join(ROOT, "node_modules/.bin/node");
export const MODERN = "2026-07-28";
export const TASKS = "io.modelcontextprotocol/tasks";

/**
 * The official client, connected: "modern" negotiates 2026-07-28 (server/discover), "legacy"
 * does the 2025 handshake; `url` another MCP path of the runtime (a bundle's `/mcp/{name}`).
 */
export async function connect(
  era: "modern" | "legacy",
  key = DEV_KEY,
  url = MCP_URL,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: "tool-runtime-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: era === "legacy" ? "legacy" : "auto" } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

/** A new API key for a fresh tenant (or the one named), through the admin API. */
export async function newKey(fields: Record<string, unknown> = {}): Promise<string> {
  const res = await asAdmin("POST", "/v1/admin/keys", {
    tenant: `mcp-${crypto.randomUUID().slice(0, 8)}`,
    agent: "dev-agent",
    capabilities: ["network:*"],
    channels: ["*"],
    ...fields,
  });
  expect(res.status).toBe(201);
  return res.body.key;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The JSON-RPC response (the last message of an SSE answer). */
  body: any;
  /** Every JSON-RPC message an SSE answer carried, in order (a JSON answer: the one). */
  messages: any[];
}

let nextId = 1;

/** One 2026-07-28 request: the envelope in `_meta`, the standard headers, the caller's key. */
export async function modern(
  method: string,
  params: Record<string, unknown> = {},
  options: {
    key?: string;
    tasks?: boolean;
    logLevel?: string;
    headers?: Record<string, string>;
    id?: number | string;
  } = {},
): Promise<RawAnswer> {
  const { _meta, ...rest } = params as { _meta?: Record<string, unknown>; name?: unknown; taskId?: unknown };
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": options.tasks ? { extensions: { [TASKS]: {} } } : {},
    ...(options.logLevel ? { "io.modelcontextprotocol/logLevel": options.logLevel } : {}),
    ..._meta,
  };
  const name = typeof rest.name === "string" ? rest.name : typeof rest.taskId === "string" ? rest.taskId : undefined;
  return post(
    { jsonrpc: "2.0", id: options.id ?? nextId++, method, params: { ...rest, _meta: envelope } },
    {
      authorization: `Bearer ${options.key ?? DEV_KEY}`,
      "mcp-protocol-version": MODERN,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
      ...options.headers,
    },
  );
}

/** A 2025-11-25 session: `initialize`, `notifications/initialized`, then requests with its session id. */
export async function legacySession(key = DEV_KEY, version = "2025-11-25") {
  const headers = { authorization: `Bearer ${key}`, "mcp-protocol-version": version };
  const init = await post(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: version,
        capabilities: { tasks: {} },
        clientInfo: { name: "tool-runtime-e2e", version: "1.0.0" },
      },
    },
    { authorization: `Bearer ${key}` },
  );
  expect(init.status).toBe(200);
  const session = init.headers.get("mcp-session-id");
  const withSession = { ...headers, ...(session ? { "mcp-session-id": session } : {}) };
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, withSession);
  let id = 1;
  return {
    session,
    initialized: init.body,
    request: (method: string, params: Record<string, unknown> = {}) =>
      post({ jsonrpc: "2.0", id: id++, method, params }, withSession),
    notify: (method: string, params: Record<string, unknown> = {}) =>
      post({ jsonrpc: "2.0", method, params }, withSession),
  };
}

/** A POST to /mcp as a client sends it; an SSE answer is read to its end and its messages parsed. */
export async function post(
  body: unknown,
  headers: Record<string, string> = {},
  init: { contentType?: string; raw?: string } = {},
): Promise<RawAnswer> {
  const res = await fetch(MCP_URL, {
    method: "POST",
    headers: {
      "content-type": init.contentType ?? "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: init.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  const messages = (res.headers.get("content-type") ?? "").startsWith("text/event-stream")
    ? text
        .split("\n\n")
        .map((frame) =>
          frame
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5).trim())
            .join("\n"),
        )
        .filter((data) => data !== "")
        .map((data) => JSON.parse(data))
    : text
      ? [JSON.parse(text)]
      : [];
  return { status: res.status, headers: res.headers, body: messages.at(-1), messages };
}

/** Polls until `test` holds, at most `timeoutMs` (bounded; each poll is one observable read). */
export async function until<T>(read: () => Promise<T>, test: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (test(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms; last: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Asserts that the tenant behind `key` has no execution but those in `except` and a sentinel
 * run after the requests under test: the execution index follows the audit queue (about a second), so an execution
 * that had run earlier would be listed by the time the later sentinel is.
 */
export async function expectNothingRan(key: string, except: string[] = []): Promise<void> {
  const sentinel = await call(
    "POST",
    "/v1/executions",
    { tool: "text.stats", input: { text: "sentinel" } },
    bearer(key),
  );
  expect(sentinel.status).toBe(200);
  // The sentinel's record follows the audit queue: about a second, much longer when the stack's
  // consumer is behind (a clean clone's loaded run once took over 15 s). Not the subject here.
  const listed = await until(
    () => call("GET", "/v1/executions", undefined, bearer(key)),
    (r) => r.body.executions.some((e: { execution_id: string }) => e.execution_id === sentinel.body.execution_id),
    45_000,
  );
  const ids = listed.body.executions.map((e: { execution_id: string }) => e.execution_id);
  expect(ids.sort()).toEqual([sentinel.body.execution_id, ...except].sort());
}
