/**
 * Tasks on the MCP face: a task is an async execution. Raw JSON-RPC POSTs throughout, because
 * the official client 2.4.0 cannot take a `resultType: "task"` answer (it throws
 * UnsupportedResultType) and has no 2025-11-25 task methods.
 */
import { describe, expect, it } from "vitest";
import { bearer, call } from "./http.ts";
import { newLatch, release } from "./latch.ts";
import { expectNothingRan, legacySession, modern, newKey, TASKS, until } from "./mcp.ts";

const TASK_ID = /^exec_[0-9a-f]{64}$/;
const countdown = (from: number, interval_ms: number) => ({ name: "demo.countdown", arguments: { from, interval_ms } });

describe("tasks, 2026-07-28 extension", () => {
  it("answers a long-running call with a task stored before the answer, and polls it to its end", async () => {
    const key = await newKey();
    const created = await modern("tools/call", countdown(3, 100), { key, tasks: true });
    expect(created.status).toBe(200);
    const task = created.body.result;
    expect(task).toMatchObject({
      resultType: "task",
      status: "working",
      ttlMs: expect.any(Number),
      pollIntervalMs: expect.any(Number),
    });
    expect(task.taskId).toMatch(TASK_ID);
    expect(Date.parse(task.createdAt)).not.toBeNaN();
    // Durable before the answer: an immediate tasks/get resolves.
    const first = await modern("tasks/get", { taskId: task.taskId }, { key, tasks: true });
    expect(first.body.result).toMatchObject({ taskId: task.taskId, resultType: "complete" });
    expect(["working", "completed"]).toContain(first.body.result.status);

    const done = await until(
      () => modern("tasks/get", { taskId: task.taskId }, { key, tasks: true }),
      (r) => r.body.result.status !== "working",
    );
    expect(done.body.result).toMatchObject({
      status: "completed",
      createdAt: task.createdAt,
      result: {
        structuredContent: { counted: [3, 2, 1], finished: true },
        _meta: { "io.tool-runtime/execution_id": task.taskId },
      },
    });
    expect(Date.parse(done.body.result.lastUpdatedAt)).toBeGreaterThan(Date.parse(task.createdAt));
    // The task is the execution.
    const view = await call("GET", `/v1/executions/${task.taskId}`, undefined, bearer(key));
    expect(view.body).toMatchObject({ status: "succeeded", output: { counted: [3, 2, 1] } });
  });

  it("ends a run the runtime stopped as a failed task with the error inlined (SEP-2663: completed is for the tool's own error)", async () => {
    // A budget of seconds (so it is spent running, not shed before the call) against a minute of counting: the execution times out.
    const created = await modern(
      "tools/call",
      { ...countdown(600, 100), _meta: { "io.tool-runtime/limits": { timeout_ms: 3_000 } } },
      { tasks: true },
    );
    const { taskId } = created.body.result;
    const done = await until(
      () => modern("tasks/get", { taskId }, { tasks: true }),
      (r) => r.body.result.status !== "working",
    );
    expect(done.body.result).toMatchObject({
      status: "failed",
      statusMessage: expect.any(String),
      // The JSON-RPC error a refusal of the same code is, its envelope in data (docs/contract.md#mcp).
      error: { code: expect.any(Number), message: expect.any(String), data: { error: { code: "timeout" } } },
    });
    expect(done.body.result).not.toHaveProperty("result");
  });

  it("never makes a task of an instant tool, nor for a client that does not take tasks", async () => {
    const instant = await modern(
      "tools/call",
      {
        name: "math.evaluate",
        arguments: { expression: "1 + 2" },
        _meta: { "io.tool-runtime/limits": { timeout_ms: 20_000 } },
      },
      { tasks: true },
    );
    expect(instant.body.result).toMatchObject({ resultType: "complete", structuredContent: { value: 3 } });
    const inline = await modern("tools/call", countdown(2, 10));
    expect(inline.body.result).toMatchObject({
      resultType: "complete",
      structuredContent: { counted: [2, 1], finished: true },
    });
    expect(inline.body.result.taskId).toBeUndefined();
  });

  it("cancels a task with tasks/cancel: an empty ack, then the execution is cancelled; again is the same ack", async () => {
    const key = await newKey();
    const { taskId } = (await modern("tools/call", countdown(600, 100), { key, tasks: true })).body.result;
    const ack = await modern("tasks/cancel", { taskId }, { key, tasks: true });
    expect(ack.body.result).toMatchObject({ resultType: "complete" });
    expect(Object.keys(ack.body.result).sort()).toEqual(["_meta", "resultType"]);
    const after = await modern("tasks/get", { taskId }, { key, tasks: true });
    expect(after.body.result).toMatchObject({ status: "cancelled" });
    expect(after.body.result.result).toBeUndefined();
    const view = await call("GET", `/v1/executions/${taskId}`, undefined, bearer(key));
    expect(view.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "cooperative" } });
    expect((await modern("tasks/cancel", { taskId }, { key, tasks: true })).body.result).toMatchObject({
      resultType: "complete",
    });
  });

  it("needs the extension declared on task requests, and answers another tenant's task like an unknown one", async () => {
    const owner = await newKey();
    const { taskId } = (await modern("tools/call", countdown(600, 100), { key: owner, tasks: true })).body.result;
    try {
      const undeclared = await modern("tasks/get", { taskId }, { key: owner });
      expect(undeclared.status).toBe(400);
      expect(undeclared.body.error).toMatchObject({
        code: -32021,
        data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
      });

      const stranger = await newKey();
      const foreign = await modern("tasks/get", { taskId }, { key: stranger, tasks: true });
      const unknownId = `exec_${"ab".repeat(32)}`;
      const unknown = await modern("tasks/get", { taskId: unknownId }, { key: stranger, tasks: true });
      expect(foreign.body.error.code).toBe(-32602);
      expect(unknown.body.error.code).toBe(-32602);
      expect(foreign.body.error.message.replace(taskId, "ID")).toBe(
        unknown.body.error.message.replace(unknownId, "ID"),
      );
      expect((await modern("tasks/cancel", { taskId }, { key: stranger, tasks: true })).body.error.code).toBe(-32602);
      // The stranger's cancel changed nothing.
      expect((await modern("tasks/get", { taskId }, { key: owner, tasks: true })).body.result.status).toBe("working");
      // tasks/result and tasks/list are 2025-11-25 methods, gone from the extension.
      expect((await modern("tasks/result", { taskId }, { key: owner, tasks: true })).body.error.code).toBe(-32601);
    } finally {
      await modern("tasks/cancel", { taskId }, { key: owner, tasks: true });
    }
  });

  it("pushes notifications/tasks on a subscriptions/listen stream until the listed tasks end", async () => {
    const key = await newKey();
    const { taskId } = (await modern("tools/call", countdown(3, 100), { key, tasks: true })).body.result;
    const unknownId = `exec_${"cd".repeat(32)}`;
    const listen = await modern(
      "subscriptions/listen",
      { notifications: { taskIds: [taskId, unknownId] } },
      { key, tasks: true, id: 77 },
    );
    expect(listen.status).toBe(200);
    const [ack, ...rest] = listen.messages;
    expect(ack).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [taskId] }, _meta: { "io.modelcontextprotocol/subscriptionId": 77 } },
    });
    const pushed = rest.filter((m) => m.method === "notifications/tasks").map((m) => m.params);
    expect(pushed.every((p) => p.taskId === taskId && p._meta["io.modelcontextprotocol/subscriptionId"] === 77)).toBe(
      true,
    );
    expect(pushed.at(-1)).toMatchObject({ status: "completed", result: { structuredContent: { counted: [3, 2, 1] } } });
    // The stream ends with the listen request's own (graceful-close) result.
    expect(rest.at(-1)).toMatchObject({ id: 77, result: { resultType: "complete" } });
  });
});

describe("tasks, 2025-11-25", () => {
  it("creates a task for a call with params.task, and serves tasks/get, tasks/result and tasks/list over the execution", async () => {
    const key = await newKey();
    const s = await legacySession(key);
    expect(s.initialized.result.capabilities.tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    // A call that works until this test releases it: "working" is its state for as long as the test looks.
    const latch = newLatch();
    const created = await s.request("tools/call", {
      name: "lab.hold",
      arguments: { latch, heed_cancel: true },
      task: { ttl: 60_000 },
    });
    const task = created.body.result.task;
    expect(task).toMatchObject({ status: "working", ttl: expect.any(Number), pollInterval: expect.any(Number) });
    expect(task.taskId).toMatch(TASK_ID);
    try {
      expect((await s.request("tasks/get", { taskId: task.taskId })).body.result).toMatchObject({
        taskId: task.taskId,
        status: "working",
      });
    } finally {
      await release(latch);
    }
    // tasks/result waits for the end and answers with the call's own result.
    const result = await s.request("tasks/result", { taskId: task.taskId });
    expect(result.body.result).toMatchObject({
      structuredContent: { released: true },
      _meta: { "io.modelcontextprotocol/related-task": { taskId: task.taskId } },
    });
    expect((await s.request("tasks/get", { taskId: task.taskId })).body.result.status).toBe("completed");
    const listed = await until(
      () => s.request("tasks/list"),
      (r) => r.body.result.tasks.some((t: { taskId: string }) => t.taskId === task.taskId),
    );
    expect(listed.body.result.tasks.find((t: { taskId: string }) => t.taskId === task.taskId)).toMatchObject({
      status: "completed",
    });
    // Cancelling a finished task is -32602 in this revision.
    expect((await s.request("tasks/cancel", { taskId: task.taskId })).body.error.code).toBe(-32602);
  });

  it("cancels a running task and refuses a task for a tool that never runs as one", async () => {
    const key = await newKey();
    const s = await legacySession(key);
    const { taskId } = (await s.request("tools/call", { ...countdown(600, 100), task: {} })).body.result.task;
    const cancelled = await s.request("tasks/cancel", { taskId });
    expect(cancelled.body.result).toMatchObject({ taskId, status: "cancelled" });
    const refused = await s.request("tools/call", { name: "math.evaluate", arguments: { expression: "1" }, task: {} });
    expect(refused.body.error.code).toBe(-32601);
    // Only the cancelled countdown ran; the refused task call did not.
    await expectNothingRan(key, [taskId]);
  });
});
