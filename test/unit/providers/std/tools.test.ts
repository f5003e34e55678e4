import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { ToolError, type ToolContext, type ToolDefinition } from "../../../../providers/sdk/define.ts";
import type { EmittedEvent, EmittedEventType, StopSignal } from "../../../../providers/sdk/protocol.ts";
import { runTool } from "../../../../providers/sdk/run-tool.ts";
import { communityTools } from "../../../../providers/community/src/tools/index.ts";
import { demoCountdown } from "../../../../providers/std/src/tools/demo-countdown.ts";
import { httpRequest } from "../../../../providers/std/src/tools/http-request.ts";
import { stdTools } from "../../../../providers/std/src/tools/index.ts";
import { jsonQuery } from "../../../../providers/std/src/tools/json-query.ts";
import { mathEvaluate } from "../../../../providers/std/src/tools/math-evaluate.ts";
import { textStats } from "../../../../providers/std/src/tools/text-stats.ts";

/** A handler's context with its events recorded and its signal in the test's hands. */
function fakeContext(onEmit: (event: EmittedEvent) => void = () => {}) {
  const controller = new AbortController();
  const events: EmittedEvent[] = [];
  const ctx: ToolContext = {
    emit(type: EmittedEventType, data: unknown) {
      events.push({ type, data });
      onEmit({ type, data });
    },
    signal: controller.signal,
    remainingMs: () => 60_000,
    caller: { tenant: `tenant_${crypto.randomUUID()}`, agent: "agent" },
    executionId: `exec_${crypto.randomUUID()}`,
    context: {},
  };
  return { ctx, events, controller };
}

async function toolError(run: () => unknown): Promise<ToolError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ToolError) return err;
    throw err;
  }
  throw new Error("the handler returned instead of throwing a ToolError");
}

const call = <I, O>(tool: ToolDefinition<I, O>, input: I) => tool.handler(input, fakeContext().ctx);

describe("tool declarations", () => {
  const all = [...stdTools, ...communityTools];

  it.each(all.map((t) => [t.manifest.name, t] as const))(
    "%s has schemas that compile under ajv strict mode",
    (_name, tool) => {
      const ajv = new Ajv({ strict: true, allErrors: true });
      expect(() => ajv.compile(tool.manifest.input_schema)).not.toThrow();
      expect(() => ajv.compile(tool.manifest.output_schema)).not.toThrow();
    },
  );

  it("gives both text.stats providers the same schemas", () => {
    const [community] = communityTools;
    expect(community.manifest.input_schema).toEqual(textStats.manifest.input_schema);
    expect(community.manifest.output_schema).toEqual(textStats.manifest.output_schema);
  });

  it("declares http.request as a send needing the network capability for the target host", () => {
    expect(httpRequest.manifest).toMatchObject({
      capability_required: "network:{url.host}",
      effects: "send",
      idempotent: false,
    });
  });
});

describe("text.stats", () => {
  it("counts code points, words, lines and sentences", async () => {
    const text = "Hello wörld 👋. How are you?\nFine — thanks!\n";
    expect(text.length).toBe(44); // the emoji is two UTF-16 units
    const stats = await call(textStats, { text, words_per_minute: 200 });
    expect(stats).toEqual({ characters: 43, words: 7, lines: 2, sentences: 3, reading_time_seconds: 3 });
  });

  it("uses 200 words per minute when none is given", async () => {
    const text = Array.from({ length: 400 }, () => "word").join(" ");
    expect((await call(textStats, { text })).reading_time_seconds).toBe(120);
    expect((await call(textStats, { text, words_per_minute: 400 })).reading_time_seconds).toBe(60);
  });

  it("finds nothing in an empty text", async () => {
    expect(await call(textStats, { text: "" })).toEqual({
      characters: 0,
      words: 0,
      lines: 0,
      sentences: 0,
      reading_time_seconds: 0,
    });
  });

  it("does not end a sentence inside a decimal number", async () => {
    expect((await call(textStats, { text: "Pi is 3.14 or so. Yes" })).sentences).toBe(2);
  });

  it("has a community twin that answers the same shape", async () => {
    const stats = await call(communityTools[0], { text: "one two three." });
    expect(stats).toEqual({ characters: 14, words: 3, lines: 1, sentences: 1, reading_time_seconds: 1 });
  });
});

describe("json.query", () => {
  const document = { a: [{ "b/c": 1, "d~e": [true, null] }], "": "empty key", n: 0 };

  it.each([
    ["", document],
    ["/a/0/b~1c", 1],
    ["/a/0/d~0e/0", true],
    ["/a/0/d~0e/1", null],
    ["/", "empty key"],
    ["/n", 0],
  ])("finds %j", async (path, value) => {
    expect(await call(jsonQuery, { document, path })).toEqual({ found: true, value });
  });

  it.each(["/missing", "/a/1", "/a/-", "/a/01", "/a/x", "/n/0", "/a/0/b~1c/deeper", "/__proto__", "/constructor"])(
    "answers found: false for %j",
    async (path) => {
      expect(await call(jsonQuery, { document, path })).toEqual({ found: false, value: null });
    },
  );

  it("queries a document that is itself a scalar", async () => {
    expect(await call(jsonQuery, { document: "text", path: "" })).toEqual({ found: true, value: "text" });
  });

  it.each(["a/b", "~1", "/bad~2escape", "/trailing~"])(
    "reports the malformed pointer %j as a ToolError with the path",
    async (path) => {
      const err = await toolError(() => call(jsonQuery, { document, path }));
      expect(err.details).toEqual({ path });
    },
  );
});

describe("math.evaluate", () => {
  it("returns the value of the expression", async () => {
    expect(await call(mathEvaluate, { expression: "2 * (3 + 4) ^ 2 / sqrt(16)" })).toEqual({ value: 24.5 });
  });

  it("reports a syntax error as a ToolError with its position", async () => {
    const err = await toolError(() => call(mathEvaluate, { expression: "1 + * 2" }));
    expect(err.details).toEqual({ position: 4 });
    expect(err.retryable).toBe(false);
  });

  it("reports division by zero as a ToolError", async () => {
    const err = await toolError(() => call(mathEvaluate, { expression: "1 / (2 - 2)" }));
    expect(err.message).toMatch(/division by zero/);
  });
});

describe("demo.countdown", () => {
  it("emits progress, partial and stdout for each number, in that order", async () => {
    const { ctx, events } = fakeContext();
    const output = await demoCountdown.handler({ from: 3, interval_ms: 0 }, ctx);
    expect(output).toEqual({ counted: [3, 2, 1], finished: true });
    expect(events).toEqual([
      { type: "progress", data: { percent: 33, remaining: 3 } },
      { type: "partial", data: { counted: [3] } },
      { type: "stdout", data: "3\n" },
      { type: "progress", data: { percent: 67, remaining: 2 } },
      { type: "partial", data: { counted: [3, 2] } },
      { type: "stdout", data: "2\n" },
      { type: "progress", data: { percent: 100, remaining: 1 } },
      { type: "partial", data: { counted: [3, 2, 1] } },
      { type: "stdout", data: "1\n" },
    ]);
  });

  it("finishes at once when counting down from 0", async () => {
    const { ctx, events } = fakeContext();
    expect(await demoCountdown.handler({ from: 0, interval_ms: 0 }, ctx)).toEqual({ counted: [], finished: true });
    expect(events).toEqual([]);
  });

  it("stops mid-way with the abort reason when cancelled", async () => {
    const reason = new DOMException("cancelled by test", "AbortError");
    const { ctx, events, controller } = fakeContext((event) => {
      if (event.type === "stdout" && event.data === "8\n") controller.abort(reason);
    });
    await expect(demoCountdown.handler({ from: 10, interval_ms: 0 }, ctx)).rejects.toBe(reason);
    expect(events.filter((e) => e.type === "stdout").map((e) => e.data)).toEqual(["10\n", "9\n", "8\n"]);
  });

  it("is reported as cancelled by the SDK when the runtime stops it during a wait", async () => {
    const delivered: EmittedEvent[] = [];
    let stop!: (s: StopSignal) => void;
    const stopped = new Promise<StopSignal>((resolve) => (stop = resolve));
    const sink = { emit: async (e: EmittedEvent) => void delivered.push(e), stopped: () => stopped };
    const forward = {
      execution_id: "exec_countdown",
      tool: "demo.countdown",
      version: "1.0.0",
      caller: { tenant: "t", agent: "a" },
      context: {},
    };
    const pending = runTool(
      demoCountdown,
      { ...forward, input: { from: 5, interval_ms: 60_000 }, remaining_timeout_ms: 120_000 },
      sink,
    );
    stop({ reason: "cancelled" });
    expect(await pending).toMatchObject({ ok: false, error: { code: "cancelled" } });
    expect(delivered.map((e) => e.type)).toEqual(["progress", "partial", "stdout"]);
  });
});

describe("http.request", () => {
  it.each([
    ["http://127.0.0.1/admin", "loopback"],
    ["http://localhost:8787/", "loopback"],
    ["ftp://example.com/file", "scheme_not_allowed"],
    ["file:///etc/passwd", "scheme_not_allowed"],
  ])("refuses %s before sending anything", async (url, reason) => {
    const err = await toolError(() => call(httpRequest, { url }));
    expect(err.details).toEqual({ reason });
  });

  it("refuses something that is not a URL", async () => {
    const err = await toolError(() => call(httpRequest, { url: "not a url" }));
    expect(err.details).toEqual({ reason: "invalid_url" });
  });
});
