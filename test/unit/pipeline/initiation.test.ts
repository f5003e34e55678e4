import { describe, expect, it } from "vitest";
import { RuntimeError } from "../../../src/errors.ts";
import { decodeBody } from "../../../src/codec/negotiate.ts";
import { parseExecutionRequest } from "../../../src/pipeline/initiation.ts";
import { readBody } from "../../../src/codec/request-body.ts";
import { requestFingerprint } from "../../../src/pipeline/idempotency.ts";
import { validateInput } from "../../../src/pipeline/schema.ts";

function thrown(fn: () => unknown): RuntimeError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return err as RuntimeError;
  }
  throw new Error("expected a RuntimeError, nothing was thrown");
}

async function rejected(promise: Promise<unknown>): Promise<RuntimeError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    return err as RuntimeError;
  }
  throw new Error("expected a RuntimeError, the promise resolved");
}

const minimal = () => ({ tool: "std.echo", input: { text: "hi" } });

/** The envelope check's verdict on `body`: the field it blames, or "ok". */
function blamed(body: unknown): string {
  try {
    parseExecutionRequest(body);
    return "ok";
  } catch (err) {
    expect(err).toBeInstanceOf(RuntimeError);
    expect((err as RuntimeError).code).toBe("invalid_request");
    return String((err as RuntimeError).details?.field ?? "(no field)");
  }
}

describe("parseExecutionRequest (docs/contract.md#request envelope)", () => {
  it("accepts a full example request (docs/contract.md#request)", () => {
    const request = {
      tool: "http.request",
      version: "1.2.0",
      tenant: "acme",
      project: "support-bot",
      input: { method: "GET", url: "https://api.example.com/orders/123" },
      context: { workflow_id: "wf_01H", agent: "order-assistant", correlation_id: "trace_01H" },
      limits: { timeout_ms: 30000, max_output_bytes: 1048576 },
      mode: "sync",
      stream: false,
      idempotency_key: "exec-order-123",
    };
    expect(parseExecutionRequest(request)).toEqual(request);
  });

  it("fills defaults for a minimal request: sync, not streamed, empty context and limits", () => {
    expect(parseExecutionRequest(minimal())).toEqual({
      tool: "std.echo",
      input: { text: "hi" },
      context: {},
      limits: {},
      mode: "sync",
      stream: false,
      version: undefined,
      provider: undefined,
      tenant: undefined,
      project: undefined,
      idempotency_key: undefined,
    });
  });

  it("accepts async mode and streaming", () => {
    expect(parseExecutionRequest({ ...minimal(), mode: "async", stream: true })).toMatchObject({
      mode: "async",
      stream: true,
    });
  });

  it("passes any JSON input through for the tool's schema to judge, null included", () => {
    expect(parseExecutionRequest({ tool: "t", input: null }).input).toBeNull();
    expect(parseExecutionRequest({ tool: "t", input: [1, "two"] }).input).toEqual([1, "two"]);
  });

  it.each([null, [], "text", 42, true])("refuses a body that is not a JSON object: %j", (body) => {
    const err = thrown(() => parseExecutionRequest(body));
    expect(err.code).toBe("invalid_request");
    expect(err.status).toBe(400);
  });

  it("refuses an unknown top-level field and names it", () => {
    expect(blamed({ ...minimal(), timeout_ms: 100 })).toBe("timeout_ms");
  });

  it("requires tool", () => {
    expect(blamed({ input: {} })).toBe("tool");
  });

  it("takes a left-out input as {} (the tool's schema decides in stage 4), the same request as an explicit {}", async () => {
    const absent = parseExecutionRequest({ tool: "t" });
    const empty = parseExecutionRequest({ tool: "t", input: {} });
    expect(absent.input).toEqual({});
    expect(absent).toEqual(empty);
    expect(await requestFingerprint(absent)).toBe(await requestFingerprint(empty));
    expect(await requestFingerprint(absent)).not.toBe(
      await requestFingerprint(parseExecutionRequest({ tool: "t", input: { a: 1 } })),
    );
  });

  it("lets a schema that takes {} run a left-out input, and refuses it as invalid_input naming input otherwise", () => {
    const { input } = parseExecutionRequest({ tool: "t" });
    const open = {
      hash: "open",
      schema: { type: "object", properties: { n: { type: "integer" } } },
      coercion: "strict" as const,
    };
    const needsText = {
      hash: "needs-text",
      schema: { type: "object", required: ["text"], properties: { text: { type: "string" } } },
      coercion: "strict" as const,
    };
    expect(validateInput(input, open, {})).toEqual({});
    const err = thrown(() => validateInput(input, needsText, {}));
    expect(err.code).toBe("invalid_input");
    expect(err.message).toMatch(/^input /);
    expect(err.details?.violations).toEqual([expect.objectContaining({ path: "/text", keyword: "required" })]);
  });

  it.each([
    ["tool", 5],
    ["tool", ""],
    ["tool", "x".repeat(257)],
    ["version", 1],
    ["version", "v".repeat(65)],
    ["version", null],
    ["provider", ["std"]],
    ["provider", "p".repeat(65)],
    ["tenant", {}],
    ["tenant", "t".repeat(129)],
    ["project", false],
    ["project", "p".repeat(129)],
  ])("refuses %s = %j and names the field", (field, value) => {
    expect(blamed({ ...minimal(), [field]: value })).toBe(field);
  });

  it.each([
    ["tool", "x".repeat(256)],
    ["version", "v".repeat(64)],
    ["provider", "p".repeat(64)],
    ["tenant", "t".repeat(128)],
    ["project", "p".repeat(128)],
  ])("accepts %s at its maximum length", (field, value) => {
    expect(blamed({ ...minimal(), [field]: value })).toBe("ok");
  });

  it.each(["SYNC", "batch", 1, true])("refuses mode %j", (mode) => {
    expect(blamed({ ...minimal(), mode })).toBe("mode");
  });

  it("refuses a null mode rather than treating it as sync", () => {
    expect(blamed({ ...minimal(), mode: null })).toBe("mode");
  });

  it.each(["true", 1, null])("refuses stream %j", (stream) => {
    expect(blamed({ ...minimal(), stream })).toBe("stream");
  });

  it.each([[[]], ["ctx"], [7]])("refuses context %j", (context) => {
    expect(blamed({ ...minimal(), context })).toBe("context");
  });

  it("refuses a null context rather than treating it as empty", () => {
    expect(blamed({ ...minimal(), context: null })).toBe("context");
  });

  it.each([null, [], 1000, "x"])("refuses limits %j", (limits) => {
    expect(blamed({ ...minimal(), limits })).toBe("limits");
  });

  it("refuses an unknown limits field and names it", () => {
    expect(blamed({ ...minimal(), limits: { timeout_ms: 100, memory_mb: 128 } })).toBe("limits.memory_mb");
  });

  it.each([0, -1, 1.5, "1000", null, Number.MAX_SAFE_INTEGER + 1])("refuses limits.timeout_ms = %j", (value) => {
    expect(blamed({ ...minimal(), limits: { timeout_ms: value } })).toBe("limits.timeout_ms");
  });

  it("refuses a non-positive limits.max_output_bytes", () => {
    expect(blamed({ ...minimal(), limits: { max_output_bytes: 0 } })).toBe("limits.max_output_bytes");
  });

  it("keeps positive integer limits", () => {
    expect(parseExecutionRequest({ ...minimal(), limits: { timeout_ms: 1, max_output_bytes: 2048 } }).limits).toEqual({
      timeout_ms: 1,
      max_output_bytes: 2048,
    });
  });

  it("accepts an idempotency key of 1 and of 255 printable characters", () => {
    expect(parseExecutionRequest({ ...minimal(), idempotency_key: "k" }).idempotency_key).toBe("k");
    const long = "~".repeat(255);
    expect(parseExecutionRequest({ ...minimal(), idempotency_key: long }).idempotency_key).toBe(long);
  });

  it.each([
    ["empty", ""],
    ["256 characters", "k".repeat(256)],
    ["a control character", "key\u0007"],
    ["a newline", "key\n1"],
    ["non-ASCII", "clé"],
    ["a number", 123],
    ["null", null],
  ])("refuses an idempotency key that is %s", (_what, key) => {
    expect(blamed({ ...minimal(), idempotency_key: key })).toBe("idempotency_key");
  });
});

describe("decodeBody", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);

  it("decodes a JSON body", () => {
    expect(decodeBody(bytes('{"tool":"t","input":{"n":1}}'), "application/json")).toEqual({
      tool: "t",
      input: { n: 1 },
    });
  });

  it("accepts application/json with a charset parameter, in any case", () => {
    expect(decodeBody(bytes('{"a":"é"}'), "application/json; charset=utf-8")).toEqual({ a: "é" });
    expect(decodeBody(bytes("[1]"), "Application/JSON; Charset=UTF-8")).toEqual([1]);
  });

  it("treats a missing content type as JSON", () => {
    expect(decodeBody(bytes("{}"), null)).toEqual({});
  });

  it("refuses a content type other than JSON or MessagePack and names it", () => {
    const err = thrown(() => decodeBody(bytes("{}"), "text/plain; charset=utf-8"));
    expect(err.code).toBe("unsupported_media_type");
    expect(err.details).toEqual({ content_type: "text/plain" });
  });

  it("refuses an empty body", () => {
    const err = thrown(() => decodeBody(new Uint8Array(), "application/json"));
    expect(err.code).toBe("invalid_request");
    expect(err.message).toMatch(/empty/);
  });

  it("refuses bytes that are not valid UTF-8", () => {
    const body = new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]); // {"a":"<ff fe>"}
    const err = thrown(() => decodeBody(body, "application/json"));
    expect(err.code).toBe("invalid_request");
    expect(err.message).toMatch(/UTF-8/);
  });

  it("refuses a truncated UTF-8 sequence", () => {
    const body = new Uint8Array([0x22, 0xe2, 0x82, 0x22]); // '"' + first two bytes of € + '"'
    expect(thrown(() => decodeBody(body, "application/json")).message).toMatch(/UTF-8/);
  });

  it("refuses invalid JSON", () => {
    const err = thrown(() => decodeBody(bytes('{"tool": "t",'), "application/json"));
    expect(err.code).toBe("invalid_request");
    expect(err.message).toMatch(/not valid JSON/);
  });
});

describe("readBody", () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    new Request("http://x", { method: "POST", body, headers, duplex: "half" } as RequestInit);

  /** A body that arrives in `chunks` pieces of `size` bytes, with no Content-Length. */
  function chunked(chunks: number, size: number) {
    let sent = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === chunks) return controller.close();
        sent++;
        controller.enqueue(new Uint8Array(size).fill(0x61));
      },
      cancel() {
        cancelled = true;
      },
    });
    return { stream, sent: () => sent, cancelled: () => cancelled };
  }

  it("returns the body's bytes", async () => {
    const body = await readBody(post('{"tool":"t"}'), 1024);
    expect(new TextDecoder().decode(body)).toBe('{"tool":"t"}');
  });

  it("accepts a body of exactly the maximum", async () => {
    const text = "x".repeat(100);
    const body = await readBody(post(text), 100);
    expect(body.byteLength).toBe(100);
    expect(new TextDecoder().decode(body)).toBe(text);
  });

  it("accepts a declared Content-Length of exactly the maximum", async () => {
    const body = await readBody(post("y".repeat(64), { "content-length": "64" }), 64);
    expect(body.byteLength).toBe(64);
  });

  it("accepts a streamed body that adds up to exactly the maximum", async () => {
    const source = chunked(4, 25);
    const body = await readBody(post(source.stream), 100);
    expect(body.byteLength).toBe(100);
  });

  it("refuses a declared Content-Length over the maximum without reading the body", async () => {
    const request = post("z".repeat(10), { "content-length": "101" });
    const err = await rejected(readBody(request, 100));
    expect(err.code).toBe("payload_too_large");
    expect(err.status).toBe(413);
    expect(err.details).toEqual({ max_bytes: 100, actual_bytes: 101 });
    expect(request.bodyUsed).toBe(false);
  });

  it("refuses a streamed body over the maximum that declares no length, and stops reading it", async () => {
    const source = chunked(1_000, 40);
    const request = post(source.stream);
    expect(request.headers.get("content-length")).toBeNull();
    const err = await rejected(readBody(request, 100));
    expect(err.code).toBe("payload_too_large");
    expect(err.details).toEqual({ max_bytes: 100 });
    expect(source.sent()).toBeLessThan(10);
    expect(source.cancelled()).toBe(true);
  });

  it("refuses a body longer than its declared Content-Length once the bytes pass the maximum", async () => {
    const source = chunked(10, 40);
    const err = await rejected(readBody(post(source.stream, { "content-length": "10" }), 100));
    expect(err.code).toBe("payload_too_large");
  });

  it("ignores a Content-Length that is not a number and counts the bytes instead", async () => {
    expect((await readBody(post("x".repeat(50), { "content-length": "lots" }), 100)).byteLength).toBe(50);
  });

  it("refuses a body one byte over the maximum", async () => {
    expect((await rejected(readBody(post("x".repeat(101)), 100))).code).toBe("payload_too_large");
  });

  it("returns no bytes for a request without a body", async () => {
    const body = await readBody(new Request("http://x", { method: "GET" }), 100);
    expect(body.byteLength).toBe(0);
  });
});
