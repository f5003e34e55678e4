/**
 * Every HTTP response an e2e test receives from the stack is held to the OpenAPI document the
 * running server serves (`/v1/openapi.json`): its status must be documented for the operation
 * (a path the document does not list must be its "no route" answer, Error404; a listed path
 * asked with a method it does not list must be 405 `method_not_allowed`, an ErrorEnvelope,
 * with `Allow` naming exactly the path's documented methods, plus HEAD beside GET), its
 * content type must be one the response lists (none for a 204), and its body must match the
 * schema — JSON and MessagePack bodies whole, each SSE event's `data` as the test reads it.
 * A mismatch fails the test that received the response (in `afterEach`).
 *
 * A vitest `setupFiles` module of the e2e project: it wraps `globalThis.fetch`, so raw `fetch`,
 * `call()`, EventSource, the typed client and the Connect transports all pass through it.
 * The Connect/gRPC-Web and MCP faces have contracts of their own, and the console and the API
 * reference page are static files: none is checked here. JSON bodies are also kept, one per shape, for the
 * generated-types check after the run (scripts/check-openapi-samples.ts).
 */
import { decode } from "@msgpack/msgpack";
import { Ajv2020 } from "ajv/dist/2020.js";
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { afterAll, afterEach } from "vitest";
import { SAMPLES_DIR, shapeOf, type Sample } from "../openapi/samples.ts";
import { provided } from "./stack.ts";

/**
 * Faces with a contract of their own, whose clients check every message against it: Connect
 * and gRPC-Web (runtime.proto; src/connect/service.ts CONNECT_PATH_PREFIX), MCP (JSON-RPC) and
 * the OAuth authorization server (its RFCs; src/oauth/endpoints.ts);
 * and the web console and the API reference page (/docs/), which are static files for people,
 * not API (`/` only sends people there).
 */
const OTHER_FACES = [
  /^\/tool_runtime\.v1\.ToolRuntimeService\//,
  /^\/mcp(\/|$)/,
  /^\/oauth\//,
  /^\/\.well-known\/oauth-authorization-server$/,
  /^\/console(\/|$)/,
  /^\/docs(\/|$)/,
  /^\/$/,
];
const BODY_WAIT_MS = 10_000;

const origin = new URL(provided("baseUrl")).origin;
const realFetch = globalThis.fetch;
const doc = (await (await realFetch(`${origin}/v1/openapi.json`)).json()) as any;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(doc, "openapi.json");

// Concrete paths before templated ones (OpenAPI's matching rule).
const templates = Object.keys(doc.paths)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    re: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+").replace(/\./g, "\\.")}$`),
  }))
  .sort((a, b) => a.params - b.params);
const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

const failures: string[] = [];
const pending = new Set<Promise<void>>();
const samples = new Map<string, Sample>();

interface Documented {
  /** JSON pointer of the response object in the document. */
  at: string;
  response: { content?: Record<string, unknown> };
  /** The body's schema when it is not the response's own (a 405's envelope). */
  schema?: string;
  /** The `Allow` header a 405 must carry. */
  allow?: string;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const ENVELOPE = { content: { "application/json": {}, "application/msgpack": {} } };

/** The documented response for this request and status, or why there is none. */
function documented(method: string, path: string, status: number): Documented | string {
  const match = templates.find((t) => t.re.test(path));
  const operation = match && doc.paths[match.template][method.toLowerCase()];
  if (!operation && match) {
    const documentedMethods = METHODS.filter((m) => m in doc.paths[match.template]).map((m) => m.toUpperCase());
    if (documentedMethods.includes("GET")) documentedMethods.push("HEAD");
    const allow = documentedMethods.sort().join(", ");
    return status === 405
      ? {
          at: "#/components/schemas/ErrorEnvelope",
          response: ENVELOPE,
          schema: "#/components/schemas/ErrorEnvelope",
          allow,
        }
      : `${method} ${match.template} is not documented, and ${status} is not its 405`;
  }
  if (!operation)
    return status === 404
      ? { at: "#/components/responses/Error404", response: doc.components.responses.Error404 }
      : `no operation for ${method} ${path}, and ${status} is not the no-route 404`;
  const key = status in operation.responses ? String(status) : "default";
  const response = operation.responses[key];
  if (!response) return `${method} ${match.template} does not document status ${status}`;
  if (response.$ref)
    return {
      at: response.$ref,
      response: response.$ref
        .slice(2)
        .split("/")
        .reduce((o: any, k: string) => o[k], doc),
    };
  return { at: `#/paths/${pointer(match.template)}/${method.toLowerCase()}/responses/${key}`, response };
}

function check(what: string, schemaAt: string, value: unknown): boolean {
  const validate = ajv.getSchema(`openapi.json${schemaAt}`);
  if (!validate) return !failures.push(`${what}: no schema at ${schemaAt}`);
  if (validate(value)) return true;
  return !failures.push(
    `${what}: body does not match the document: ${ajv.errorsText(validate.errors, { separator: "; " })}\n  ${JSON.stringify(value)?.slice(0, 400)}`,
  );
}

/** Reads the SSE frames the test reads, checking each event's data as it passes. */
function checkedEventStream(res: Response, what: string, schemaAt: string): Response {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  // Complete frames only: SSE drops an unfinished one at the end of the stream.
  const frames = () => {
    const blocks = buffer.split("\n\n");
    buffer = blocks.pop()!;
    for (const block of blocks) {
      const data = block
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5).trimStart());
      if (data.length === 0) continue;
      try {
        check(`${what} event`, schemaAt, JSON.parse(data.join("\n")));
      } catch (err) {
        failures.push(`${what}: event data is not JSON: ${err}`);
      }
    }
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (err) {
        return controller.error(err);
      }
      if (chunk.done) return void (frames(), controller.close());
      buffer += decoder.decode(chunk.value, { stream: true });
      frames();
      controller.enqueue(chunk.value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const out = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  Object.defineProperty(out, "url", { value: res.url });
  return out;
}

async function checkBody(
  res: Response,
  what: string,
  at: string,
  media: string | undefined,
  hasContent: boolean,
  schema?: string,
): Promise<void> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!hasContent || !media) {
    if (bytes.length > 0)
      failures.push(`${what}: the document gives this response no content, but it has ${bytes.length} bytes`);
    return;
  }
  const schemaAt = schema ?? `${at}/content/${pointer(media)}/schema`;
  const value =
    media === "application/msgpack"
      ? decode(bytes)
      : media === "application/json"
        ? JSON.parse(new TextDecoder().decode(bytes))
        : new TextDecoder().decode(bytes);
  if (check(what, schemaAt, value) && media === "application/json" && schema === undefined) {
    const key = `${at} ${shapeOf(value)}`;
    if (!samples.has(key)) samples.set(key, { at, body: value });
  }
}

/**
 * A keep-alive connection the stack closed while it sat idle in the pool fails the request sent
 * on it ("other side closed", before any answer). A GET or HEAD is sent again once: it changes
 * nothing, and it is what a browser does. Anything else fails as it did.
 */
async function fetchOnce(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  try {
    return await realFetch(input, init);
  } catch (err) {
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    const code = (err as { cause?: { code?: string } })?.cause?.code;
    if ((method !== "GET" && method !== "HEAD") || code !== "UND_ERR_SOCKET") throw err;
    return realFetch(input, init);
  }
}

globalThis.fetch = async function checkedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const res = await fetchOnce(input, init);
  const url = new URL(input instanceof Request ? input.url : String(input));
  if (url.origin !== origin || OTHER_FACES.some((face) => face.test(url.pathname))) return res;
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  const what = `${method} ${url.pathname} → ${res.status}`;
  const found = documented(method, url.pathname, res.status);
  if (typeof found === "string") return (failures.push(`${what}: ${found}`), res);
  const { at, response, schema, allow } = found;
  if (allow !== undefined && res.headers.get("allow") !== allow)
    failures.push(
      `${what}: Allow is ${JSON.stringify(res.headers.get("allow"))}, the document lists ${JSON.stringify(allow)}`,
    );
  const media = res.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  const content = response.content;
  if (content && !(media && media in content))
    return (failures.push(`${what}: content type ${media} is not one of ${Object.keys(content).join(", ")}`), res);
  if (content && media === "text/event-stream" && res.body)
    return checkedEventStream(res, what, `${at}/content/${pointer(media)}/schema`);
  const done = checkBody(res.clone(), what, at, media, content !== undefined, schema).catch(
    (err) => void failures.push(`${what}: ${err}`),
  );
  pending.add(done);
  void done.finally(() => pending.delete(done));
  return res;
};

/** Fails the test (or the file's hooks) that received a response the document does not describe. */
async function report(): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([Promise.all(pending), new Promise((r) => (timer = setTimeout(r, BODY_WAIT_MS)))]);
  clearTimeout(timer);
  if (pending.size > 0) failures.push(`${pending.size} response bodies did not end within ${BODY_WAIT_MS} ms`);
  if (failures.length === 0) return;
  const counted = new Map<string, number>();
  for (const f of failures.splice(0)) counted.set(f, (counted.get(f) ?? 0) + 1);
  throw new Error(
    `responses the OpenAPI document does not describe:\n${[...counted].map(([f, n]) => (n > 1 ? `${f} (×${n})` : f)).join("\n")}`,
  );
}

afterEach(report);

afterAll(async () => {
  mkdirSync(SAMPLES_DIR, { recursive: true });
  writeFileSync(`${SAMPLES_DIR}/${randomUUID()}.json`, JSON.stringify([...samples.values()]));
  await report();
});
