import { describe, expect, it } from "vitest";
import type { ExecutionView } from "../../src/contract.ts";
import { baseUrl, call, execute, ROOMY, sansIntent, sansLate } from "./http.ts";
import { hold, newLatch, release } from "./latch.ts";

describe("POST /v1/executions against wrangler dev", () => {
  it("runs math.evaluate and returns succeeded with the value and a filled execution block", async () => {
    const res = await execute<ExecutionView>({
      tool: "math.evaluate",
      input: { expression: "2 * (3 + 4) ^ 2 - sqrt(16)" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tool: "math.evaluate",
      version: "1.0.0",
      status: "succeeded",
      output: { value: 94 },
    });
    const block = res.body.execution;
    expect(block).toMatchObject({
      sandbox: "v8-isolate",
      worker: "std",
      timeout_ms: ROOMY.timeout_ms,
      resources: { cpu_ms: null, peak_memory_mb: null },
    });
    for (const figure of [block.queued_ms, block.started_ms, block.duration_ms])
      expect(figure).toBeGreaterThanOrEqual(0);
    expect(block.started_ms!).toBeGreaterThanOrEqual(block.queued_ms!);
  });

  it("keeps the result addressable by execution_id", async () => {
    const first = await execute({ tool: "json.query", input: { document: { a: [{ b: 7 }] }, path: "/a/0/b" } });
    expect(first.body).toMatchObject({ status: "succeeded", output: { found: true, value: 7 } });
    const again = await call("GET", `/v1/executions/${first.body.execution_id}`);
    expect(again.status).toBe(200);
    expect(sansLate(again.body)).toEqual(sansLate(first.body));
  });

  it("answers async mode with 202 and a Location to poll until succeeded", async () => {
    const res = await execute({ tool: "demo.countdown", mode: "async", input: { from: 3, interval_ms: 50 } });
    expect(res.status).toBe(202);
    expect(res.headers.get("location")).toBe(`/v1/executions/${res.body.execution_id}`);
    let view: ExecutionView | undefined;
    for (let i = 0; i < 100; i++) {
      view = (await call<ExecutionView>("GET", res.headers.get("location")!)).body;
      if (view.status === "succeeded") break;
      expect(["scheduled", "running"]).toContain(view.status);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(view).toMatchObject({ status: "succeeded", output: { counted: [3, 2, 1], finished: true } });
  });

  it("lists each schema violation of invalid input with its path", async () => {
    const res = await execute({ tool: "demo.countdown", input: { from: -1, interval_ms: "fast", extra: true } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: "invalid_input", type: "request_error", retryable: false });
    const paths = res.body.error.details.violations.map((v: { path: string }) => v.path).sort();
    expect(paths).toEqual(["/extra", "/from", "/interval_ms"]);
  });

  describe("coercion (docs/contract.md#coercion)", () => {
    it("replaces null with the schema default for a lenient tool", async () => {
      const res = await execute({ tool: "text.stats", input: { text: "one two three four", words_per_minute: null } });
      expect(res.status).toBe(200);
      expect(res.body.output).toMatchObject({ words: 4, reading_time_seconds: 2 }); // 4 words at the default 200/min
    });

    it("keeps null an error for a strict tool", async () => {
      const res = await execute({ tool: "demo.countdown", input: { from: 1, interval_ms: null } });
      expect(res.status).toBe(400);
      expect(res.body.error.details.violations).toEqual([expect.objectContaining({ path: "/interval_ms" })]);
    });

    it("rejects a numeric string for a number in both modes", async () => {
      const lenient = await execute({ tool: "text.stats", input: { text: "x", words_per_minute: "200" } });
      const strict = await execute({ tool: "demo.countdown", input: { from: "3" } });
      expect([lenient.status, strict.status]).toEqual([400, 400]);
      expect(lenient.body.error.code).toBe("invalid_input");
      expect(strict.body.error.details.violations[0].path).toBe("/from");
    });

    it("accepts an integer where a number is declared", async () => {
      const res = await execute({ tool: "text.stats", input: { text: "x", words_per_minute: 100 } });
      expect(res.status).toBe(200);
    });

    it('replaces null with defaults behind $ref, anyOf and oneOf (null → "en")', async () => {
      const res = await execute({
        tool: "lab.defaults",
        input: { text: "hi", lang: null, format: null, target: { kind: "file", path: "a.txt", lang: null } },
        limits: ROOMY,
      });
      expect(res.status).toBe(200);
      expect(res.body.output.received).toEqual({
        text: "hi",
        lang: "en",
        format: "plain",
        target: { kind: "file", path: "a.txt", lang: "en" },
      });
      const inline = await execute({
        tool: "lab.defaults",
        input: { text: "hi", target: { kind: "inline", width: null } },
        limits: ROOMY,
      });
      expect(inline.body.output.received).toEqual({ text: "hi", target: { kind: "inline", width: 80 } });
    });

    it("keeps a null the schema admits, even beside a default", async () => {
      const res = await execute({ tool: "lab.defaults", input: { text: "hi", note: null }, limits: ROOMY });
      expect(res.status).toBe(200);
      expect(res.body.output.received).toEqual({ text: "hi", note: null });
    });

    it("leaves a numeric string inside a combinator for validation to refuse", async () => {
      const res = await execute({ tool: "lab.defaults", input: { text: "hi", format: "2" }, limits: ROOMY });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_input");
      expect(res.body.error.details.violations.map((v: { path: string }) => v.path)).toContain("/format");
    });
  });

  describe("failures of the tool or its provider", () => {
    it("answers invalid_output (502) when the provider returns the wrong shape", async () => {
      const res = await execute({ tool: "lab.bad_output", input: {} });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({
        status: "failed",
        error: { code: "invalid_output", details: { violations: [{ path: "/value" }] } },
      });
    });

    it("answers provider_crashed (502) when the handler throws", async () => {
      const res = await execute({ tool: "lab.crash", input: {} });
      expect(res.status).toBe(502);
      // lab.crash is not idempotent, so the runtime does not call a retry safe (docs/contract.md#retries).
      expect(res.body).toMatchObject({ status: "failed", error: { code: "provider_crashed", retryable: false } });
    });

    it("answers timeout (504, timed_out) with the partial output when a provider overruns", async () => {
      // Never released, so it overruns; the budget is seconds, so it is spent running, not shed before the call.
      const latch = newLatch();
      const res = await execute({ ...hold(latch), limits: { timeout_ms: 3_000 } });
      await release(latch); // its handler, which the runtime stopped waiting for, ends too
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({
        status: "timed_out",
        partial_output: { holding: latch },
        error: { code: "timeout", retryable: true, details: { timeout_ms: 3_000 } },
        execution: { timeout_ms: 3_000 },
      });
    });

    it("answers tool_error (422) when http.request refuses a loopback target", async () => {
      const res = await execute({ tool: "http.request", input: { url: `${baseUrl}/healthz` } });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({
        status: "failed",
        error: { code: "tool_error", details: { reason: "loopback" } },
      });
    });
  });

  it("serves 20 concurrent calls, each with its own result", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        execute({ tool: "math.evaluate", input: { expression: `${i} * 3` }, limits: { timeout_ms: 10_000 } }),
      ),
    );
    expect(results.map((r) => r.body.output?.value)).toEqual(Array.from({ length: 20 }, (_, i) => i * 3));
    expect(new Set(results.map((r) => r.body.execution_id)).size).toBe(20);
  });
});
