/**
 * The MCP face's pure mappings: refusal codes, execution endings as CallToolResults, task
 * statuses per revision, which tools a caller's grants could ever call, and when a call is a task.
 */
import { describe, expect, it } from "vitest";
import { ERROR_CODES, TERMINAL_STATUSES, type ExecutionStatus } from "../../../src/contract.ts";
import { ERROR_TABLE } from "../../../src/errors.ts";
import { jsonRpcCodeOf } from "../../../src/mcp/errors.ts";
import { callToolResult, endingOfEvent } from "../../../src/mcp/results.ts";
import { taskStatusOf } from "../../../src/mcp/task-status.ts";
import { mayEverHold } from "../../../src/execution/tool-listing.ts";
import { taskUseOf } from "../../../src/mcp/tools.ts";

describe("refusal codes", () => {
  it("answers what the params name wrongly with -32602, as MCP says for an unknown tool", () => {
    for (const code of ["invalid_input", "invalid_request", "tool_not_found", "tool_deprecated", "execution_not_found"])
      expect(jsonRpcCodeOf(code)).toBe(-32602);
  });

  it("derives the other codes from the error table's status, away from the codes MCP assigns", () => {
    expect(jsonRpcCodeOf("forbidden")).toBe(-32003);
    expect(jsonRpcCodeOf("rate_limited")).toBe(-32029);
    expect(jsonRpcCodeOf("idempotency_conflict")).toBe(-32009);
    expect(jsonRpcCodeOf("payload_too_large")).toBe(-32013);
    expect(jsonRpcCodeOf("no_healthy_provider")).toBe(-32053);
    expect(jsonRpcCodeOf("internal")).toBe(-32603);
    const assigned = new Set([-32001, -32002, -32020, -32021, -32022, -32042, -32600, -32601, -32700]);
    for (const code of ERROR_CODES) expect(assigned.has(jsonRpcCodeOf(code)), code).toBe(false);
  });

  it("gives a code this runtime does not know the internal error", () =>
    expect(jsonRpcCodeOf("a_newer_code")).toBe(-32603));
});

describe("an execution's end as a CallToolResult", () => {
  it("puts a success's output in structuredContent and its JSON in a text block", () => {
    const result = callToolResult({ execution_id: "exec_1", status: "succeeded", output: { value: 42 } });
    expect(result).toEqual({
      content: [{ type: "text", text: '{"value":42}' }],
      structuredContent: { value: 42 },
      _meta: { "io.tool-runtime/execution_id": "exec_1", "io.tool-runtime/status": "succeeded" },
    });
  });

  it("wraps an output that is not an object, and writes bytes as $base64", () => {
    expect(callToolResult({ execution_id: "e", status: "succeeded", output: [1, 2] }).structuredContent).toEqual({
      value: [1, 2],
    });
    expect(
      callToolResult({ execution_id: "e", status: "succeeded", output: { b: new Uint8Array([1, 2]) } })
        .structuredContent,
    ).toEqual({ b: { $base64: "AQI=" } });
  });

  it("gives an upstream's content blocks back as content, and anything else shaped like them as JSON text", () => {
    const blocks = [
      { type: "text", text: "a picture:" },
      { type: "image", data: "iVBO", mimeType: "image/png" },
      { type: "resource", resource: { uri: "test://r", mimeType: "text/plain", text: "r" } },
    ];
    const result = callToolResult({ execution_id: "e", status: "succeeded", output: { content: blocks } });
    expect(result.content).toEqual(blocks);
    expect(result.structuredContent).toEqual({ content: blocks });
    for (const output of [{ content: [{ type: "video" }] }, { content: blocks, more: 1 }, { content: "text" }])
      expect(callToolResult({ execution_id: "e", status: "succeeded", output }).content).toEqual([
        { type: "text", text: JSON.stringify(output) },
      ]);
  });

  it("answers a run that failed, timed out or was cancelled with isError and the envelope", () => {
    const error = {
      code: "timeout" as const,
      message: "budget spent",
      type: "execution_error" as const,
      retryable: true,
    };
    const result = callToolResult({ execution_id: "e", status: "timed_out", error, partial_output: { n: 1 } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({ error, partial_output: { n: 1 } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  });

  it("reads the same ending from a terminal stream event as from the view", () => {
    expect(endingOfEvent("e", "done", { output: { ok: true }, execution: {} })).toEqual({
      execution_id: "e",
      status: "succeeded",
      output: { ok: true },
    });
    const error = { code: "cancelled", message: "m", type: "execution_error", retryable: false };
    expect(endingOfEvent("e", "error", { status: "cancelled", error, partial_output: [1] })).toMatchObject({
      status: "cancelled",
      error,
      partial_output: [1],
    });
  });
});

describe("task statuses", () => {
  it("keeps a tool's own error completed in the extension, any other failure failed; both failed in 2025-11-25", () => {
    // SEP-2663: `completed` with isError for a tool that ran and reported an error, `failed` for the rest.
    expect(taskStatusOf("failed", "modern", "tool_error")).toBe("completed");
    for (const code of ["provider_crashed", "no_healthy_provider", "internal", undefined])
      expect(taskStatusOf("failed", "modern", code), String(code)).toBe("failed");
    expect(taskStatusOf("timed_out", "modern", "timeout")).toBe("failed");
    expect(taskStatusOf("succeeded", "modern")).toBe("completed");
    expect(taskStatusOf("failed", "legacy", "tool_error")).toBe("failed");
    expect(taskStatusOf("failed", "legacy")).toBe("failed");
    expect(taskStatusOf("cancelled", "modern")).toBe("cancelled");
    expect(taskStatusOf("succeeded", "legacy")).toBe("completed");
    // A call waiting for a person needs input from outside; the other waits are work.
    expect(["modern", "legacy"].map((era) => taskStatusOf("awaiting_approval", era as "modern" | "legacy"))).toEqual([
      "input_required",
      "input_required",
    ]);
    expect(taskStatusOf("queued", "modern")).toBe("working");
    expect(taskStatusOf("scheduled", "legacy")).toBe("working");
  });

  it("maps every running status to working and every terminal one to a terminal task status", () => {
    const all: ExecutionStatus[] = ["queued", "scheduled", "running", ...TERMINAL_STATUSES];
    for (const s of all) {
      for (const era of ["modern", "legacy"] as const) {
        const t = taskStatusOf(s, era);
        expect(
          TERMINAL_STATUSES.includes(s) ? ["completed", "failed", "cancelled"] : ["working"],
          `${s} ${era}`,
        ).toContain(t);
      }
    }
    expect(taskStatusOf("awaiting_something_new" as ExecutionStatus, "modern")).toBe("working");
  });
});

describe("tools a caller could ever call", () => {
  it("needs nothing for a tool without a capability", () => expect(mayEverHold([], null)).toBe(true));

  it("covers a host template with any grant of its kind, and a literal one as level 3 does", () => {
    expect(mayEverHold(["network:api.example.com"], "network:{url.host}")).toBe(true);
    expect(mayEverHold(["*"], "network:{url.host}")).toBe(true);
    expect(mayEverHold(["files:read"], "network:{url.host}")).toBe(false);
    expect(mayEverHold([], "network:{url.host}")).toBe(false);
    expect(mayEverHold(["files:*"], "files:read")).toBe(true);
    expect(mayEverHold(["files:write"], "files:read")).toBe(false);
  });
});

describe("when a call becomes a task", () => {
  it("never for instant tools, always for slow and long-running ones, at the client's choice for fast ones", () => {
    expect(taskUseOf("instant")).toBe("never");
    expect(taskUseOf("fast")).toBe("optional");
    expect(taskUseOf("slow")).toBe("always");
    expect(taskUseOf("long_running")).toBe("always");
  });
});

describe("the error table", () => {
  it("has a status for every code the mapping reads", () => {
    for (const code of ERROR_CODES) expect(ERROR_TABLE[code].status).toBeGreaterThanOrEqual(400);
  });
});
