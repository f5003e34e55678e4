/**
 * A misbehaving MCP server for the e2e suite (docs/contract.md#upstreams): it speaks just
 * enough MCP 2026-07-28 (server/discover, tools/list) for the runtime to register it, and then
 * answers `tools/call` wrongly on purpose, one tool per fault. Plain Node HTTP on loopback; the
 * runtime reaches it because the e2e stack's UPSTREAM_EGRESS_ALLOW names its port.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

const OUTPUT = { type: "object", properties: { count: { type: "integer" } }, required: ["count"] };
const INPUT = { type: "object", properties: {}, additionalProperties: false };

/** Each tool, and what it does wrong. */
export const FAULTS = {
  ok: "answers correctly: {count: 1}",
  garbage: "answers tools/call with a body that is not JSON-RPC",
  liar: "answers with structured content its own output schema refuses",
  huge: "answers with 6 MiB of text",
  http_500: "answers tools/call with HTTP 500",
  slow: "never answers tools/call: holds the request until the runtime closes it (10 s at most)",
  moved: "redirects tools/call to /moved on its own origin, and answers correctly there",
  elsewhere: "redirects tools/call to another origin (the `elsewhere` URL given at start)",
  invalid_params: "answers tools/call with JSON-RPC error -32602 (invalid params)",
  gated:
    "answers tools/call with HTTP 503 to a bearer token that starts with `refused-`, correctly to any other (or none)",
} as const;

export interface FaultyUpstream {
  url: string;
  /** Calls of tools/call seen, by tool. */
  calls: Map<string, number>;
  /** Tools whose tools/call request the runtime closed before it was answered. */
  closed: Set<string>;
  /** Lists `tool` with this description from now on: a changed definition, for pinning. */
  describe(tool: keyof typeof FAULTS, description: string): void;
  close(): Promise<void>;
}

const complete = (result: object) => ({ ...result, resultType: "complete" });

function answer(res: ServerResponse, status: number, body: string, type = "application/json"): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

interface State {
  calls: Map<string, number>;
  closed: Set<string>;
  elsewhere: string;
  descriptions: Map<string, string>;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  { calls, closed, elsewhere, descriptions }: State,
): Promise<void> {
  if (req.method !== "POST") return answer(res, 405, "", "text/plain");
  let text = "";
  for await (const chunk of req) text += chunk;
  const message = JSON.parse(text) as { id?: string | number; method: string; params?: { name?: string } };
  if (message.id === undefined) return answer(res, 202, "", "text/plain");
  const reply = (result: object) =>
    answer(res, 200, JSON.stringify({ jsonrpc: "2.0", id: message.id, result: complete(result) }));
  switch (message.method) {
    case "server/discover":
      return reply({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "faulty-upstream", version: "1.0.0" } },
      });
    case "tools/list":
      return reply({
        ttlMs: 0,
        cacheScope: "public",
        tools: Object.entries(FAULTS).map(([name, description]) => ({
          name,
          description: descriptions.get(name) ?? description,
          inputSchema: INPUT,
          outputSchema: OUTPUT,
        })),
      });
    case "tools/call": {
      const name = message.params?.name ?? "";
      calls.set(name, (calls.get(name) ?? 0) + 1);
      if (name === "moved" && req.url === "/moved")
        return reply({ content: [{ type: "text", text: '{"count":1}' }], structuredContent: { count: 1 } });
      switch (name) {
        case "ok":
          return reply({ content: [{ type: "text", text: '{"count":1}' }], structuredContent: { count: 1 } });
        case "garbage":
          return answer(res, 200, "this is not JSON-RPC {");
        case "liar":
          return reply({ content: [{ type: "text", text: '{"count":"many"}' }], structuredContent: { count: "many" } });
        case "huge":
          return reply({
            content: [{ type: "text", text: "x".repeat(6 * 1024 * 1024) }],
            structuredContent: { count: 1 },
          });
        case "http_500":
          return answer(res, 500, "internal error", "text/plain");
        case "invalid_params":
          return answer(
            res,
            200,
            JSON.stringify({
              jsonrpc: "2.0",
              id: message.id,
              error: { code: -32602, message: "Invalid params: count must be positive" },
            }),
          );
        case "gated":
          if (/^Bearer refused-/.test(req.headers.authorization ?? ""))
            return answer(res, 503, "this token's account is suspended", "text/plain");
          return reply({ content: [{ type: "text", text: '{"count":1}' }], structuredContent: { count: 1 } });
        case "moved":
          res.writeHead(307, { location: "/moved", "content-length": 0 });
          return void res.end();
        case "elsewhere":
          res.writeHead(307, { location: elsewhere, "content-length": 0 });
          return void res.end();
        case "slow": {
          // The response's close before it is written: the runtime closed the request.
          const gone = await new Promise<boolean>((resolve) => {
            const t = setTimeout(() => resolve(false), 10_000);
            res.once("close", () => (clearTimeout(t), resolve(true)));
          });
          if (gone) return void closed.add(name);
          return reply({ content: [{ type: "text", text: '{"count":1}' }], structuredContent: { count: 1 } });
        }
      }
      return answer(
        res,
        200,
        JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32602, message: `Tool ${name} not found` } }),
      );
    }
  }
  return answer(
    res,
    200,
    JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }),
  );
}

/** `elsewhere`: the URL the `elsewhere` tool redirects to (another origin). */
export async function startFaultyUpstream(port: number, elsewhere = "http://127.0.0.1:9/mcp"): Promise<FaultyUpstream> {
  const state: State = { calls: new Map(), closed: new Set(), elsewhere, descriptions: new Map() };
  const server: Server = createServer((req, res) => {
    handle(req, res, state).catch(() => answer(res, 400, "bad request", "text/plain"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: state.calls,
    closed: state.closed,
    describe: (tool, description) => void state.descriptions.set(tool, description),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface LegacyUpstream {
  url: string;
  /** Whether a tools/call of `hold` is being held now. */
  holding(): boolean;
  /** The `requestId`s of the notifications/cancelled it received. */
  cancelled: (string | number)[];
  close(): Promise<void>;
}

/**
 * A 2025-era MCP server (no `server/discover`: the client falls back to `initialize`), with one
 * tool, `hold`, whose tools/call is held open until the client sends `notifications/cancelled`
 * for it (or 10 s pass). It shows that the runtime tells an older server of a cancel.
 */
export async function startLegacyUpstream(port: number): Promise<LegacyUpstream> {
  const cancelled: (string | number)[] = [];
  const held = new Map<string | number, () => void>();
  const server: Server = createServer((req, res) => {
    (async () => {
      if (req.method !== "POST") return answer(res, 405, "", "text/plain");
      let text = "";
      for await (const chunk of req) text += chunk;
      const message = JSON.parse(text) as {
        id?: string | number;
        method: string;
        params?: { name?: string; requestId?: string | number };
      };
      const reply = (result: object) => answer(res, 200, JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      if (message.method === "notifications/cancelled") {
        const id = message.params?.requestId;
        if (id !== undefined) {
          cancelled.push(id);
          held.get(id)?.();
        }
        return answer(res, 202, "", "text/plain");
      }
      if (message.id === undefined) return answer(res, 202, "", "text/plain");
      switch (message.method) {
        case "initialize":
          return reply({
            protocolVersion: "2025-11-25",
            capabilities: { tools: {} },
            serverInfo: { name: "legacy-upstream", version: "1.0.0" },
          });
        case "tools/list":
          return reply({
            tools: [
              {
                name: "hold",
                description: "Holds the call until it is cancelled.",
                inputSchema: { type: "object", properties: {} },
              },
            ],
          });
        case "tools/call": {
          const id = message.id;
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, 10_000);
            held.set(id, () => (clearTimeout(t), resolve()));
          });
          held.delete(id);
          if (res.writableEnded || res.destroyed) return;
          return answer(
            res,
            200,
            JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32800, message: "Request cancelled" } }),
          );
        }
      }
      return answer(
        res,
        200,
        JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }),
      );
    })().catch(() => answer(res, 400, "bad request", "text/plain"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    holding: () => held.size > 0,
    cancelled,
    close: () => {
      for (const release of held.values()) release();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
