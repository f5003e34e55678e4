import { describe, expect, it } from "vitest";
import { publishDecision, toolCount } from "../../../src/registry/publish-rule.ts";

const last = { version: 7, tools: 28 };

describe("the registry's publish rule", () => {
  it("publishes anything when nothing was given out before", () => {
    expect(publishDecision(undefined, { version: 1, tools: 0, explainedTools: undefined })).toEqual({ publish: true });
  });

  it("publishes a snapshot with as many tools or more", () => {
    expect(publishDecision(last, { version: 8, tools: 28, explainedTools: undefined })).toEqual({ publish: true });
    expect(publishDecision(last, { version: 8, tools: 30, explainedTools: undefined })).toEqual({ publish: true });
  });

  it("holds back a snapshot with fewer tools that no load or removal explains, and says why", () => {
    const decision = publishDecision(last, { version: 8, tools: 0, explainedTools: undefined });
    expect(decision.publish).toBe(false);
    expect(decision).toMatchObject({ reason: expect.stringContaining("0 tools, fewer than the 28 of version 7") });
    // One tool fewer is fewer.
    expect(publishDecision(last, { version: 8, tools: 27, explainedTools: undefined }).publish).toBe(false);
  });

  it("publishes a shrunk snapshot that a completed load or an operator's removal explains", () => {
    expect(publishDecision(last, { version: 8, tools: 20, explainedTools: 20 })).toEqual({ publish: true });
    expect(publishDecision(last, { version: 8, tools: 0, explainedTools: 0 })).toEqual({ publish: true });
    // A later change that keeps what the load found (a health view, an override) goes out too.
    expect(publishDecision({ version: 8, tools: 20 }, { version: 9, tools: 20, explainedTools: 20 })).toEqual({
      publish: true,
    });
  });

  it("explains a shrink only down to what the latest load or removal left", () => {
    // The load found all 28; the catalog lost since is not explained by it.
    const decision = publishDecision(last, { version: 8, tools: 0, explainedTools: 28 });
    expect(decision).toMatchObject({
      publish: false,
      reason: expect.stringContaining("the latest load or removal left 28"),
    });
    expect(publishDecision(last, { version: 8, tools: 19, explainedTools: 20 }).publish).toBe(false);
  });

  it("counts tool names", () => {
    expect(toolCount({ tools: { "a.b": {}, "c.d": {} } })).toBe(2);
    expect(toolCount({ tools: {} })).toBe(0);
  });
});
