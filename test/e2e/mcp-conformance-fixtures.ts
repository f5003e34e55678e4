/**
 * The MCP conformance suite's fixture tools (test_simple_text, test_image_content, …), served
 * by a test-only upstream MCP server, so that the suite's `tools/call` scenarios grade what the
 * gateway makes of a real tool's answer (docs/contract.md#upstreams). Each tool answers as the
 * suite's scenario description asks (node_modules/@modelcontextprotocol/conformance, each
 * scenario's "Server Implementation Requirements").
 *
 * Plain Node HTTP on loopback, speaking MCP 2026-07-28 (server/discover, tools/list,
 * tools/call): what the runtime speaks to a modern upstream whatever era its own client uses.
 * A call whose tool sends notifications (progress, log messages) is answered as an SSE stream:
 * the notifications, then the result.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** A 1×1 red PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** A WAV file of 8 silent 8-bit samples at 8 kHz: the smallest audio a player accepts. */
function silentWav(): string {
  const samples = 8;
  const b = Buffer.alloc(44 + samples);
  b.write("RIFF", 0);
  b.writeUInt32LE(36 + samples, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16); // fmt chunk size
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24); // sample rate
  b.writeUInt32LE(8000, 28); // byte rate
  b.writeUInt16LE(1, 32); // block align
  b.writeUInt16LE(8, 34); // bits per sample
  b.write("data", 36);
  b.writeUInt32LE(samples, 40);
  b.fill(128, 44); // 8-bit silence
  return b.toString("base64");
}

const text = (value: string) => ({ type: "text", text: value });
const NO_ARGS = { type: "object", properties: {}, additionalProperties: false };

/** The suite's json-schema-2020-12 tool: its inputSchema must be listed with every keyword kept. */
const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

type Notify = (method: string, params: object) => void;

/** Thrown by a fixture to answer its call with a JSON-RPC error (a protocol error, not a tool's). */
class ProtocolFault extends Error {
  constructor(readonly code: number) {
    super("internal error");
  }
}
type Meta = { progressToken?: string | number };
interface Fixture {
  description: string;
  inputSchema?: object;
  /** The runtime's word on what MCP does not say (docs/contract.md#upstreams); "fast" unless given. */
  latency_class?: "instant" | "slow";
  /** `closed` aborts when the runtime closes the request (2026-07-28: that is the cancellation). */
  call(args: Record<string, unknown>, meta: Meta, notify: Notify, closed: AbortSignal): object | Promise<object>;
}

const log = (notify: Notify, data: string) => notify("notifications/message", { level: "info", data });

/** Resolves after `ms`, or as soon as `signal` aborts. */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/** Every fixture tool, by the name the suite calls it by. */
export const FIXTURES: Record<string, Fixture> = {
  test_simple_text: {
    description: "Returns simple text (tools-call-simple-text).",
    call: () => ({ content: [text("This is a simple text response for testing.")] }),
  },
  test_image_content: {
    description: "Returns a PNG image (tools-call-image).",
    call: () => ({ content: [{ type: "image", data: PNG, mimeType: "image/png" }] }),
  },
  test_audio_content: {
    description: "Returns a WAV sound (tools-call-audio).",
    call: () => ({ content: [{ type: "audio", data: silentWav(), mimeType: "audio/wav" }] }),
  },
  test_embedded_resource: {
    description: "Returns an embedded resource (tools-call-embedded-resource).",
    call: () => ({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
  },
  test_multiple_content_types: {
    description: "Returns text, an image and a resource (tools-call-mixed-content).",
    call: () => ({
      content: [
        text("Multiple content types test:"),
        { type: "image", data: PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
  },
  test_error_handling: {
    description: "Always fails, as a tool error (tools-call-error).",
    call: () => ({ isError: true, content: [text("This tool intentionally returns an error for testing")] }),
  },
  test_tool_with_progress: {
    description: "Reports progress 0, 50 and 100 of 100 (tools-call-with-progress).",
    call: (_args, meta, notify) => {
      const token = meta.progressToken;
      if (token !== undefined)
        for (const progress of [0, 50, 100])
          notify("notifications/progress", { progressToken: token, progress, total: 100 });
      return { content: [text("Progress test completed")] };
    },
  },
  test_tool_with_logging: {
    description: "Sends three log messages at info level (tools-call-with-logging).",
    call: (_args, _meta, notify) => {
      for (const message of ["Tool execution started", "Tool processing data", "Tool execution completed"])
        log(notify, message);
      return { content: [text("Logging test completed")] };
    },
  },
  // server-stateless: the gateway must pass on no log message its caller did not ask for
  // (no logLevel in the request's _meta), however much the upstream logs.
  test_logging_tool: {
    description: "Sends a log message (server-stateless, no log without logLevel).",
    call: (_args, _meta, notify) => {
      log(notify, "a log message the caller did not ask for");
      return { content: [text("logged")] };
    },
  },
  // server-stateless: the response stream carries no request of the server's own. The runtime
  // relays none, whatever the upstream would send: a plain answer is what it can be graded on.
  test_streaming_elicitation: {
    description: "Answers on the response stream (server-stateless, no independent requests on it).",
    call: () => ({ content: [text("streamed")] }),
  },
  // The tasks scenarios' fixtures: the runtime, not the upstream, runs a call as a task, and
  // does so for a tool its operator calls slow (src/mcp/tools.ts, taskUseOf).
  greet: {
    description: "Says hello (sync-only: never a task).",
    inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
    latency_class: "instant",
    call: (args) => ({ content: [text(`Hello, ${String(args.name)}!`)] }),
  },
  slow_compute: {
    description: "Sleeps `seconds` seconds, then answers (task-supporting).",
    inputSchema: {
      type: "object",
      properties: { seconds: { type: "number", minimum: 0, maximum: 60 }, label: { type: "string" } },
      required: ["seconds"],
    },
    latency_class: "slow",
    call: async (args, _meta, _notify, closed) => {
      await sleep(Number(args.seconds) * 1000, closed);
      return { content: [text(`computed after ${String(args.seconds)} s (${String(args.label ?? "")})`)] };
    },
  },
  failing_job: {
    description: "Always fails, as a tool error (task-supporting).",
    latency_class: "slow",
    call: () => ({ isError: true, content: [text("failing_job failed, as it always does")] }),
  },
  protocol_error_job: {
    description: "Fails with a protocol error, not a tool's (task-supporting).",
    latency_class: "slow",
    call: () => {
      throw new ProtocolFault(-32603);
    },
  },
  // http-custom-header-server-validation: a tool whose argument clients mirror into a header
  // (x-mcp-header); the name and the argument are those of the suite's own client fixture.
  test_custom_headers: {
    description: "Echoes its region, which a client mirrors into the Mcp-Param-Region header.",
    inputSchema: {
      type: "object",
      properties: { region: { type: "string", "x-mcp-header": "Region" } },
      required: ["region"],
    },
    call: (args) => ({ content: [text(`region ${String(args.region)}`)] }),
  },
  json_schema_2020_12_tool: {
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: JSON_SCHEMA_2020_12,
    call: (args) => ({ content: [text(JSON.stringify(args))] }),
  },
};

export interface FixtureUpstream {
  url: string;
  close(): Promise<void>;
}

interface Message {
  id?: string | number;
  method: string;
  params?: { name?: string; arguments?: Record<string, unknown>; _meta?: Meta };
}

function answer(res: ServerResponse, status: number, body: string, type = "application/json"): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const closed = new AbortController();
  res.once("close", () => closed.abort());
  if (req.method !== "POST") return answer(res, 405, "", "text/plain");
  let body = "";
  for await (const chunk of req) body += chunk;
  const message = JSON.parse(body) as Message;
  if (message.id === undefined) return answer(res, 202, "", "text/plain");
  const frame = (m: object) => JSON.stringify({ jsonrpc: "2.0", ...m });
  const reply = (result: object) =>
    answer(res, 200, frame({ id: message.id, result: { ...result, resultType: "complete" } }));
  const fail = (code: number, text: string) =>
    answer(res, 200, frame({ id: message.id, error: { code, message: text } }));
  switch (message.method) {
    case "server/discover":
      return reply({
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {}, logging: {} },
        ttlMs: 0,
        cacheScope: "public",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "conformance-fixtures", version: "1.0.0" } },
      });
    case "tools/list":
      return reply({
        ttlMs: 0,
        cacheScope: "public",
        tools: Object.entries(FIXTURES).map(([name, f]) => ({
          name,
          description: f.description,
          inputSchema: f.inputSchema ?? NO_ARGS,
        })),
      });
    case "tools/call": {
      const fixture = FIXTURES[message.params?.name ?? ""];
      if (!fixture) return fail(-32602, `Tool ${message.params?.name} not found`);
      const notifications: string[] = [];
      let result: object;
      try {
        result = await fixture.call(
          message.params?.arguments ?? {},
          message.params?._meta ?? {},
          (method, params) => void notifications.push(frame({ method, params })),
          closed.signal,
        );
      } catch (err) {
        if (err instanceof ProtocolFault) return fail(err.code, err.message);
        throw err;
      }
      if (closed.signal.aborted) return;
      const last = frame({ id: message.id, result: { ...result, resultType: "complete" } });
      if (notifications.length === 0) return answer(res, 200, last);
      // Notifications go on the request's own stream, before its result (Streamable HTTP).
      const events = [...notifications, last].map((data) => `event: message\ndata: ${data}\n\n`).join("");
      return answer(res, 200, events, "text/event-stream");
    }
  }
  return fail(-32601, "Method not found");
}

/**
 * Listens on `port` (one the stack's UPSTREAM_EGRESS_ALLOW names). Another file's upstream may
 * still be letting go of it: retried while it is in use, for at most 10 s.
 */
export async function startFixtureUpstream(port: number): Promise<FixtureUpstream> {
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => answer(res, 400, "bad request", "text/plain"));
  });
  for (const deadline = Date.now() + 10_000; ;) {
    const error = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      server.once("error", resolve);
      server.listen(port, "127.0.0.1", () => (server.removeListener("error", resolve), resolve(undefined)));
    });
    if (!error) break;
    if (error.code !== "EADDRINUSE" || Date.now() > deadline) throw error;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
