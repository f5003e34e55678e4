import { afterEach, describe, expect, it, vi } from "vitest";
import { defineTool, sleep, ToolError } from "../../../../providers/sdk/define.ts";
import type { EmittedEvent, ExecutionSink, StopSignal, ToolCall } from "../../../../providers/sdk/protocol.ts";
import { runTool } from "../../../../providers/sdk/run-tool.ts";

function memorySink() {
  const events: EmittedEvent[] = [];
  let stop!: (s: StopSignal) => void;
  const stopped = new Promise<StopSignal>((r) => (stop = r));
  const sink: ExecutionSink = { emit: async (e) => void events.push(e), stopped: () => stopped };
  return { sink, events, stop };
}

function call(tool: string, input: unknown, remaining = 1000): ToolCall {
  return {
    execution_id: "exec_test",
    tool,
    version: "1.0.0",
    input,
    caller: { tenant: "t", agent: "a" },
    context: {},
    remaining_timeout_ms: remaining,
  };
}

const base = {
  version: "1.0.0",
  description: "",
  input: {},
  output: {},
  idempotent: true,
  latency_class: "fast",
  effects: "read",
} as const;

describe("runTool", () => {
  it("returns the handler's output and forwards events in emit order", async () => {
    const tool = defineTool({
      ...base,
      name: "t.echo",
      handler: (input: { n: number }, ctx) => {
        for (let i = 0; i < 5; i++) ctx.emit("progress", { i });
        return { n: input.n };
      },
    });
    const { sink, events } = memorySink();
    const result = await runTool(tool, call("t.echo", { n: 3 }), sink);
    expect(result).toMatchObject({ ok: true, output: { n: 3 } });
    expect(events.map((e) => (e.data as { i: number }).i)).toEqual([0, 1, 2, 3, 4]);
  });

  it("reports a ToolError as tool_error with its retryable flag", async () => {
    const tool = defineTool({
      ...base,
      name: "t.fail",
      handler: () => {
        throw new ToolError("upstream said no", { retryable: true });
      },
    });
    const result = await runTool(tool, call("t.fail", {}), memorySink().sink);
    expect(result).toMatchObject({
      ok: false,
      error: { code: "tool_error", message: "upstream said no", retryable: true },
    });
  });

  it("reports any other exception as provider_crashed with only a reference id, and logs the rest under it", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const tool = defineTool({
      ...base,
      name: "t.crash",
      handler: () => {
        throw new TypeError("x is undefined");
      },
    });
    const result = await runTool(tool, call("t.crash", {}), memorySink().sink);
    if (result.ok) throw new Error("expected a failure");
    const ref = (result.error.details as { ref: string }).ref;
    expect(ref).toMatch(/^[0-9a-f]{16}$/);
    expect(result.error).toEqual({
      code: "provider_crashed",
      message: `the handler failed (ref ${ref})`,
      details: { ref },
    });
    expect(JSON.stringify(result)).not.toContain("undefined");
    expect(logged).toHaveBeenCalledTimes(1);
    const line = JSON.parse(logged.mock.calls[0][0] as string);
    expect(line).toMatchObject({
      msg: "handler failed",
      ref,
      tool: "t.crash",
      execution_id: "exec_test",
      error: "TypeError: x is undefined",
    });
    expect(line.stack).toContain("x is undefined");
  });

  it("gives each crash its own reference id", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const tool = defineTool({
      ...base,
      name: "t.crash",
      handler: () => {
        throw "a string";
      },
    });
    const refs = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const result = await runTool(tool, call("t.crash", {}), memorySink().sink);
      refs.add(!result.ok ? (result.error.details as { ref: string }).ref : "");
    }
    expect(refs.size).toBe(20);
  });

  it("passes a ToolError's code and details through as tool_code and details", async () => {
    const tool = defineTool({
      ...base,
      name: "t.coded",
      error_codes: [{ code: "quota_exhausted", description: "no quota left" }],
      handler: () => {
        throw new ToolError("no quota left today", { code: "quota_exhausted", details: { resets_at: "tomorrow" } });
      },
    });
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runTool(tool, call("t.coded", {}), memorySink().sink);
    expect(result).toMatchObject({
      ok: false,
      error: {
        code: "tool_error",
        message: "no quota left today",
        tool_code: "quota_exhausted",
        retryable: false,
        details: { resets_at: "tomorrow" },
      },
    });
    expect(warned).not.toHaveBeenCalled();
  });

  it("passes an undeclared code through and warns the tool's author", async () => {
    const tool = defineTool({
      ...base,
      name: "t.surprise",
      handler: () => {
        throw new ToolError("odd", { code: "not_declared" });
      },
    });
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runTool(tool, call("t.surprise", {}), memorySink().sink);
    expect(result).toMatchObject({ ok: false, error: { code: "tool_error", tool_code: "not_declared" } });
    expect(JSON.parse(warned.mock.calls[0][0] as string)).toMatchObject({
      msg: "tool error code not declared in error_codes",
      tool_code: "not_declared",
      tool: "t.surprise",
    });
  });

  it("aborts the handler's signal when the runtime stops the call", async () => {
    const tool = defineTool({
      ...base,
      name: "t.wait",
      handler: async (_i, ctx) => {
        await sleep(60_000, ctx.signal);
        return {};
      },
    });
    const { sink, stop } = memorySink();
    const pending = runTool(tool, call("t.wait", {}), sink);
    stop({ reason: "cancelled" });
    expect(await pending).toMatchObject({ ok: false, error: { code: "cancelled" } });
  });

  it("shows the handler the remaining budget, not the original", async () => {
    const tool = defineTool({ ...base, name: "t.budget", handler: (_i, ctx) => ({ left: ctx.remainingMs() }) });
    const result = await runTool(tool, call("t.budget", {}, 250), memorySink().sink);
    expect(result.ok && (result.output as { left: number }).left).toBeLessThanOrEqual(250);
    expect(result.ok && (result.output as { left: number }).left).toBeGreaterThan(0);
  });
});

describe("partial_merge: append", () => {
  const appending = (emit: (ctx: Parameters<Parameters<typeof defineTool>[0]["handler"]>[1]) => void) =>
    defineTool({
      ...base,
      name: "t.append",
      partial_merge: "append",
      handler: (_i, ctx) => {
        emit(ctx);
        return {};
      },
    });

  it("forwards array and string partials", async () => {
    for (const chunks of [
      [[1], [2, 3]],
      ["ab", "c"],
    ]) {
      const { sink, events } = memorySink();
      const result = await runTool(
        appending((ctx) => chunks.forEach((c) => ctx.emit("partial", c))),
        call("t.append", {}),
        sink,
      );
      expect(result.ok).toBe(true);
      expect(events.map((e) => e.data)).toEqual(chunks);
    }
  });

  it.each([
    [{ n: 1 }, /must carry a JSON array .* or a string .*, not object/],
    [42, /not number/],
    [null, /not null/],
  ])("refuses a partial of another shape (%j) at emit time", async (data, message) => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    let thrown: unknown;
    const tool = appending((ctx) => {
      try {
        ctx.emit("partial", data);
      } catch (err) {
        thrown = err;
        throw err;
      }
    });
    const { sink, events } = memorySink();
    expect(await runTool(tool, call("t.append", {}), sink)).toMatchObject({
      ok: false,
      error: { code: "provider_crashed" },
    });
    expect(String(thrown)).toMatch(message);
    expect(events).toEqual([]);
  });

  it("refuses a string after arrays", async () => {
    let thrown: unknown;
    const tool = appending((ctx) => {
      ctx.emit("partial", [1]);
      try {
        ctx.emit("partial", "x");
      } catch (err) {
        thrown = err;
      }
    });
    await runTool(tool, call("t.append", {}), memorySink().sink);
    expect(String(thrown)).toMatch(/were arrays; a string cannot be appended/);
  });

  it("leaves other event types and replace-tools alone", async () => {
    const { sink, events } = memorySink();
    const replacing = defineTool({
      ...base,
      name: "t.replace",
      handler: (_i, ctx) => {
        ctx.emit("partial", { any: "shape" });
        return {};
      },
    });
    expect(replacing.manifest.partial_merge).toBe("replace");
    expect((await runTool(replacing, call("t.replace", {}), sink)).ok).toBe(true);
    const logging = appending((ctx) => ctx.emit("log", { message: "objects are fine here" }));
    expect((await runTool(logging, call("t.append", {}), sink)).ok).toBe(true);
    expect(events).toHaveLength(2);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("defineTool", () => {
  it("puts error_codes and partial_merge in the manifest", () => {
    const tool = defineTool({
      ...base,
      name: "t.m",
      error_codes: [{ code: "a_b", description: "d" }],
      partial_merge: "append",
      handler: () => ({}),
    });
    expect(tool.manifest).toMatchObject({ error_codes: [{ code: "a_b", description: "d" }], partial_merge: "append" });
  });
  it.each([
    [[{ code: "Bad", description: "d" }], /does not match/],
    [[{ code: "x".repeat(65), description: "d" }], /does not match/],
    [
      [
        { code: "a", description: "d" },
        { code: "a", description: "e" },
      ],
      /declared twice/,
    ],
    [[{ code: "a", description: " " }], /needs a description/],
  ])("refuses the error_codes %j", (error_codes, message) => {
    expect(() => defineTool({ ...base, name: "t.e", error_codes, handler: () => ({}) })).toThrow(message);
  });
  it("refuses an unknown partial_merge", () => {
    expect(() => defineTool({ ...base, name: "t.p", partial_merge: "merge" as never, handler: () => ({}) })).toThrow(
      /partial_merge/,
    );
  });
  it("refuses a ToolError code that is not lower snake case where it is thrown", () => {
    expect(() => new ToolError("x", { code: "Not-A-Code" })).toThrow(TypeError);
  });
  it("refuses a version that is not semver", () => {
    expect(() => defineTool({ ...base, name: "t.v", version: "1.0", handler: () => ({}) })).toThrow(/not semver/);
  });
  it("refuses an unknown latency class", () => {
    expect(() => defineTool({ ...base, name: "t.l", latency_class: "soon" as never, handler: () => ({}) })).toThrow(
      /latency_class/,
    );
  });
});

describe("runTool and the end of an attempt", () => {
  it("does not take the runtime's settled answer for a stop", async () => {
    const seen: boolean[] = [];
    const tool = defineTool({
      ...base,
      name: "t.settled",
      handler: async (_input, ctx) => {
        await new Promise((r) => setTimeout(r, 0));
        seen.push(ctx.signal.aborted);
        return {};
      },
    });
    const sink: ExecutionSink = { emit: async () => {}, stopped: async () => ({ reason: "settled" }) };
    expect(await runTool(tool, call("t.settled", {}), sink)).toMatchObject({ ok: true });
    expect(seen).toEqual([false]);
  });
});
