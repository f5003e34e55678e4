import Ajv from "ajv";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ToolContext } from "../../../../providers/sdk/define.ts";
import type { EmittedEvent, ExecutionSink, StopSignal } from "../../../../providers/sdk/protocol.ts";
import { runTool } from "../../../../providers/sdk/run-tool.ts";
import { labFlaky, labItems, labReject, labSpin, labTools } from "../../../../providers/lab/src/tools/index.ts";
import { foldPartials, mergePartial } from "../../../../src/execution/partial-output.ts";

function memorySink() {
  const events: EmittedEvent[] = [];
  const sink: ExecutionSink = {
    emit: async (e) => void events.push(e),
    stopped: () => new Promise<StopSignal>(() => {}),
  };
  return { sink, events };
}

const forward = (tool: string, input: unknown) => ({
  execution_id: `exec_${crypto.randomUUID()}`,
  tool,
  version: "1.0.0",
  input,
  caller: { tenant: "t", agent: "a" },
  context: {},
  remaining_timeout_ms: 10_000,
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("lab tool declarations", () => {
  it.each(labTools.map((t) => [t.manifest.name, t] as const))(
    "%s has schemas that compile under ajv strict mode",
    (_name, tool) => {
      const ajv = new Ajv({ strict: true, allErrors: true });
      expect(() => ajv.compile(tool.manifest.input_schema)).not.toThrow();
      expect(() => ajv.compile(tool.manifest.output_schema)).not.toThrow();
    },
  );
});

describe("lab.reject", () => {
  it.each(["quota_exhausted", "not_ready"])("fails with the declared code %s as tool_code", async (code) => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runTool(labReject, forward("lab.reject", { code, retryable: true }), memorySink().sink);
    expect(result).toMatchObject({
      ok: false,
      error: { code: "tool_error", tool_code: code, retryable: true, details: { asked: code } },
    });
    expect(labReject.manifest.error_codes!.map((c) => c.code)).toContain(code);
    expect(warned).not.toHaveBeenCalled();
  });

  it("passes an undeclared code through and warns", async () => {
    const warned = vi.spyOn(console, "warn").mockImplementation(() => {});
    const result = await runTool(
      labReject,
      forward("lab.reject", { code: "not_ready", undeclared: true }),
      memorySink().sink,
    );
    expect(result).toMatchObject({ ok: false, error: { code: "tool_error", tool_code: "surprise" } });
    expect(warned).toHaveBeenCalledTimes(1);
  });
});

describe("lab.items", () => {
  it("declares append partials and emits only the new items each time", async () => {
    expect(labItems.manifest.partial_merge).toBe("append");
    const { sink, events } = memorySink();
    const result = await runTool(labItems, forward("lab.items", { count: 7, batch: 3 }), sink);
    expect(events.map((e) => (e.data as { n: number }[]).map((i) => i.n))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    // What the runtime shows as partial_output after the last event is the whole list.
    const partials = events.map((e) => e.data);
    expect(foldPartials("append", partials)).toEqual(result.ok && (result.output as { items: unknown[] }).items);
    expect(partials.reduce<unknown>((prev, data) => mergePartial("append", prev, data), undefined)).toEqual(
      foldPartials("append", partials),
    );
  });

  it("emits nothing for count 0", async () => {
    const { sink, events } = memorySink();
    expect(await runTool(labItems, forward("lab.items", { count: 0 }), sink)).toMatchObject({
      ok: true,
      output: { items: [] },
    });
    expect(events).toEqual([]);
  });
});

describe("lab.flaky", () => {
  const ctx = {
    emit: () => {},
    signal: new AbortController().signal,
    remainingMs: () => 1000,
    caller: { tenant: "t", agent: "a" },
    executionId: "e",
    context: {},
  } as ToolContext;

  it("counts calls per key and forgets the oldest key past 10,000 keys", async () => {
    const first = `first-${crypto.randomUUID()}`;
    expect(await labFlaky.handler({ key: first }, ctx)).toEqual({ calls: 1 });
    expect(await labFlaky.handler({ key: first }, ctx)).toEqual({ calls: 2 });
    for (let i = 0; i < 10_000; i++) await labFlaky.handler({ key: `filler-${i}-${first}` }, ctx);
    expect(await labFlaky.handler({ key: first }, ctx)).toEqual({ calls: 1 });
  });
});

describe("lab.spin", () => {
  it("does the asked number of rounds and answers a digest that depends on it", async () => {
    const ctx = {} as ToolContext;
    const a = await labSpin.handler({ rounds: 1000 }, ctx);
    const b = await labSpin.handler({ rounds: 1001 }, ctx);
    expect(a).toMatchObject({ rounds: 1000 });
    expect(a.digest).not.toBe(b.digest);
    expect(await labSpin.handler({ rounds: 1000 }, ctx)).toEqual(a);
  });
});
