/**
 * The upstream client's wire (src/upstreams/mcp-wire.ts): the answer to one request read from a
 * JSON body or an event stream however it is cut into chunks, the notifications before it, and
 * what a broken exchange ends in, which failures.ts classifies as it did the SDK's errors.
 */
import { describe, expect, it } from "vitest";
import { classifyUpstreamError } from "../../../src/upstreams/failures.ts";
import {
  JsonRpcError,
  type JsonRpcMessage,
  readAnswer,
  readText,
  UpstreamHttpError,
  WireError,
} from "../../../src/upstreams/mcp-wire.ts";

const runtime = { credential: "runtime" as const, tooLarge: false };

/** A response whose body arrives in the given pieces, each its own chunk. */
function streamed(type: string, pieces: string[]): Response {
  const chunks = pieces.map((p) => new TextEncoder().encode(p));
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
  return new Response(body, { headers: { "content-type": type } });
}

const event = (m: object) => `event: message\r\ndata: ${JSON.stringify(m)}\r\n\r\n`;

describe("readAnswer", () => {
  it("reads the answer from an event stream cut anywhere, handing on the notifications before it", async () => {
    const progress = { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 4, progress: 1 } };
    const text = `: keep-alive\n\nid: 1\ndata:\n\n${event(progress)}${event({ jsonrpc: "2.0", id: 3, result: { a: 0 } })}${event({ jsonrpc: "2.0", id: 4, result: { a: 1 } })}`;
    for (const size of [1, 7, text.length]) {
      const pieces: string[] = [];
      for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
      const seen: JsonRpcMessage[] = [];
      expect(await readAnswer(streamed("text/event-stream", pieces), 4, (m) => seen.push(m))).toEqual({ a: 1 });
      expect(seen).toEqual([progress]);
    }
  });

  it("reads no more of an answer than its limit, as a stream or as JSON", async () => {
    class TooLarge extends Error {}
    const limit = (maxBytes: number) => ({ maxBytes, exceeded: () => new TooLarge(`over ${maxBytes}`) });
    const answer = event({ jsonrpc: "2.0", id: 1, result: { text: "x".repeat(200) } });
    const pieces = [answer.slice(0, 50), answer.slice(50, 120), answer.slice(120)];
    const bytes = new TextEncoder().encode(answer).byteLength;
    await expect(readAnswer(streamed("text/event-stream", pieces), 1, () => {}, limit(100))).rejects.toThrow(TooLarge);
    expect(await readAnswer(streamed("text/event-stream", pieces), 1, () => {}, limit(bytes))).toEqual({
      text: "x".repeat(200),
    });
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text: "y".repeat(200) } });
    const halves = [body.slice(0, 100), body.slice(100)];
    await expect(readAnswer(streamed("application/json", halves), 1, () => {}, limit(150))).rejects.toThrow(TooLarge);
    expect(await readAnswer(streamed("application/json", halves), 1, () => {}, limit(body.length))).toEqual({
      text: "y".repeat(200),
    });
    // An error's body too (the client reads it for a JSON-RPC refusal).
    await expect(readText(streamed("text/plain", ["a".repeat(60), "b".repeat(60)]), limit(100))).rejects.toThrow(
      TooLarge,
    );
    expect(await readText(streamed("text/plain", ["a".repeat(60), "b".repeat(40)]), limit(100))).toBe(
      "a".repeat(60) + "b".repeat(40),
    );
  });

  it("reads the answer from a JSON body, alone or in a batch", async () => {
    const json = (body: unknown) => Response.json(body);
    expect(await readAnswer(json({ jsonrpc: "2.0", id: 1, result: { ok: true } }), 1, () => {})).toEqual({ ok: true });
    expect(
      await readAnswer(
        json([
          { jsonrpc: "2.0", method: "notifications/message", params: {} },
          { jsonrpc: "2.0", id: 1, result: {} },
        ]),
        1,
        () => {},
      ),
    ).toEqual({});
  });

  it("throws the upstream's JSON-RPC error with its code", async () => {
    const answer = Response.json({ jsonrpc: "2.0", id: 2, error: { code: -32602, message: "Tool x not found" } });
    const err = await readAnswer(answer, 2, () => {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonRpcError);
    expect(err).toMatchObject({ code: -32602 });
    expect(classifyUpstreamError(err, runtime)).toMatchObject({ kind: "answer", result: { code: "tool_not_found" } });
  });

  it("ends a stream without the answer, a body that is no JSON-RPC and a wrong content type in errors", async () => {
    const closed = await readAnswer(streamed("text/event-stream", [": hi\n\n"]), 1, () => {}).catch((e) => e);
    expect(closed).toMatchObject({ name: "WireError", code: "CONNECTION_CLOSED" });
    expect(classifyUpstreamError(closed, runtime)).toMatchObject({ failure: { code: "sandbox_unavailable" } });
    const garbage = await readAnswer(streamed("application/json", ["not json {"]), 1, () => {}).catch((e) => e);
    expect(garbage).toBeInstanceOf(SyntaxError);
    expect(classifyUpstreamError(garbage, runtime)).toMatchObject({ failure: { code: "provider_crashed" } });
    const html = await readAnswer(streamed("text/html", ["<p>"]), 1, () => {}).catch((e) => e);
    expect(html).toMatchObject({ name: "WireError", code: "INVALID_RESULT" });
    expect(classifyUpstreamError(html, runtime)).toMatchObject({ failure: { code: "provider_crashed" } });
    const notRpc = await readAnswer(Response.json({ id: 1, result: {} }), 1, () => {}).catch((e) => e);
    expect(notRpc).toMatchObject({ code: "INVALID_RESULT" });
  });
});

describe("the client's errors, classified", () => {
  it("means what the SDK's errors of the same kind meant", () => {
    const send = new WireError("SEND_FAILED", "x", { cause: new TypeError("internal error") });
    expect(classifyUpstreamError(send, runtime)).toMatchObject({ failure: { code: "sandbox_unavailable" } });
    expect(classifyUpstreamError(new UpstreamHttpError(503), runtime)).toMatchObject({
      failure: { code: "sandbox_unavailable" },
    });
    expect(classifyUpstreamError(new UpstreamHttpError(500), runtime)).toMatchObject({
      failure: { code: "provider_crashed" },
    });
    expect(classifyUpstreamError(new UpstreamHttpError(401), { ...runtime, credential: "tenant" })).toMatchObject({
      kind: "refused",
      refusal: { details: { http_status: 401 } },
    });
    expect(classifyUpstreamError(new JsonRpcError(-32602, "count must be positive"), runtime)).toMatchObject({
      kind: "refused",
      refusal: { code: "invalid_input" },
    });
    expect(classifyUpstreamError(new WireError("REQUEST_TIMEOUT", "late"), runtime)).toMatchObject({
      failure: { code: "provider_crashed" },
    });
    // A DOMException's numeric code is no JSON-RPC code.
    expect(classifyUpstreamError(new DOMException("stopped", "AbortError"), runtime)).toMatchObject({
      failure: { code: "provider_crashed" },
    });
  });
});
