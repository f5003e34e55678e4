import { describe, expect, it } from "vitest";
import type { ExecutionView } from "../../src/contract.ts";
import { DEV_KEY, bearer, call, execute, sansLate } from "./http.ts";
import { collect } from "./sse.ts";

async function startAsync(body: Record<string, unknown>): Promise<string> {
  const res = await execute({ ...body, mode: "async" });
  expect(res.status).toBe(202);
  return res.body.execution_id;
}

async function until(id: string, test: (v: ExecutionView) => boolean): Promise<ExecutionView> {
  for (let i = 0; i < 200; i++) {
    const view = (await call<ExecutionView>("GET", `/v1/executions/${id}`)).body;
    if (test(view)) return view;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("condition never held");
}

const cancel = (id: string, body?: unknown) => call<ExecutionView>("POST", `/v1/executions/${id}/cancel`, body);

describe("cancellation (TRT-002 §8)", () => {
  it("stops demo.countdown cooperatively, keeping its partial output", async () => {
    const id = await startAsync({ tool: "demo.countdown", input: { from: 50, interval_ms: 100 } });
    await until(id, (v) => v.status === "running");
    await new Promise((r) => setTimeout(r, 250));
    const res = await cancel(id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "cancelled", error: { code: "cancelled" }, cancellation: { outcome: "cooperative" } });
    const counted = (res.body.partial_output as { counted: number[] }).counted;
    expect(counted[0]).toBe(50);
    expect(counted.length).toBeLessThan(50);
    // The stream ends with the one terminal event, which says what happened.
    const events = await collect(id);
    expect(events.at(-1)).toMatchObject({ type: "error", payload: { data: { status: "cancelled", cancellation: { outcome: "cooperative" } } } });
  });

  it("forces a tool that ignores the signal once the grace period is over, and drops what it sends later", async () => {
    const id = await startAsync({ tool: "lab.stall", input: { ms: 1_500 }, limits: { timeout_ms: 30_000 } });
    await until(id, (v) => v.status === "running");
    const asked = Date.now();
    const res = await cancel(id, { grace_ms: 300 });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(250);
    expect(res.body).toMatchObject({ status: "cancelled", cancellation: { outcome: "forced" }, partial_output: { stage: "before the wait" } });

    // The handler cannot be killed: it runs on to its end, and its late event and result are refused.
    await new Promise((r) => setTimeout(r, 1_800));
    const events = await collect(id);
    expect(events.some((e) => e.type === "log")).toBe(false);
    expect(sansLate((await call("GET", `/v1/executions/${id}`)).body)).toEqual(sansLate(res.body));
  });

  it("answers a second cancel with the same record", async () => {
    const id = await startAsync({ tool: "demo.countdown", input: { from: 20, interval_ms: 100 } });
    await until(id, (v) => v.status === "running");
    const [first, second] = await Promise.all([cancel(id), cancel(id)]);
    const third = await cancel(id);
    expect(first.body.status).toBe("cancelled");
    expect(sansLate(second.body)).toEqual(sansLate(first.body));
    expect(sansLate(third.body)).toEqual(sansLate(first.body));
  });

  it("leaves a finished execution as it was and says already_finished", async () => {
    const done = await execute({ tool: "math.evaluate", input: { expression: "1+1" } });
    const res = await cancel(done.body.execution_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "succeeded", output: { value: 2 }, cancellation: { outcome: "already_finished" } });
    const after = await call("GET", `/v1/executions/${done.body.execution_id}`);
    expect(sansLate(after.body)).toEqual(sansLate(done.body));
  });

  it("refuses an unknown id and a grace period over the maximum", async () => {
    expect((await cancel(`exec_${"c".repeat(64)}`)).status).toBe(404);
    const id = await startAsync({ tool: "demo.countdown", input: { from: 1, interval_ms: 0 } });
    const res = await cancel(id, { grace_ms: 3_600_000 });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_request", details: { field: "grace_ms" } });
  });

  it("does not stop an execution when its sync caller goes away", async () => {
    const controller = new AbortController();
    const { baseUrl } = await import("./http.ts");
    const pending = fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
      body: JSON.stringify({ tool: "demo.countdown", input: { from: 4, interval_ms: 100 }, context: { correlation_id: "gone-caller" } }),
      signal: controller.signal,
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 150));
    controller.abort();
    await pending;
    // Nothing lists executions yet, so this checks the runtime stays healthy and serves on.
    const res = await execute({ tool: "math.evaluate", input: { expression: "2+2" } });
    expect(res.body.output).toEqual({ value: 4 });
  });
});
