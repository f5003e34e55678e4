import { describe, expect, it } from "vitest";
import { defineTool, sleep, ToolError } from "../../providers/sdk/define.ts";
import type { EmittedEvent, ExecutionSink, StopSignal, ToolCall } from "../../providers/sdk/protocol.ts";
import { runTool } from "../../providers/sdk/run-tool.ts";

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

const base = { version: "1.0.0", description: "", input: {}, output: {}, idempotent: true, latency_class: "fast", effects: "read" } as const;

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
    const tool = defineTool({ ...base, name: "t.fail", handler: () => { throw new ToolError("upstream said no", { retryable: true }); } });
    const result = await runTool(tool, call("t.fail", {}), memorySink().sink);
    expect(result).toMatchObject({ ok: false, error: { code: "tool_error", message: "upstream said no", retryable: true } });
  });

  it("reports any other exception as provider_crashed", async () => {
    const tool = defineTool({ ...base, name: "t.crash", handler: () => { throw new TypeError("x is undefined"); } });
    const result = await runTool(tool, call("t.crash", {}), memorySink().sink);
    expect(result).toMatchObject({ ok: false, error: { code: "provider_crashed" } });
    expect(!result.ok && result.error.message).toContain("TypeError: x is undefined");
  });

  it("aborts the handler's signal when the runtime stops the call", async () => {
    const tool = defineTool({ ...base, name: "t.wait", handler: async (_i, ctx) => { await sleep(60_000, ctx.signal); return {}; } });
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

describe("defineTool", () => {
  it("refuses a version that is not semver", () => {
    expect(() => defineTool({ ...base, name: "t.v", version: "1.0", handler: () => ({}) })).toThrow(/not semver/);
  });
  it("refuses an unknown latency class", () => {
    expect(() => defineTool({ ...base, name: "t.l", latency_class: "soon" as never, handler: () => ({}) })).toThrow(/latency_class/);
  });
});
