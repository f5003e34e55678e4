/** The typed client (client/index.ts) against the real stack. */
import { describe, expect, it } from "vitest";
import { createClient, ToolRuntimeError, type StreamEvent } from "../../client/index.ts";
import { baseUrl, DEV_KEY, ROOMY } from "./http.ts";

const runtime = createClient({ baseUrl, apiKey: DEV_KEY });

describe("the typed client", () => {
  it("invokes a tool and returns its view", async () => {
    const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" }, { limits: ROOMY });
    expect(view).toMatchObject({ status: "succeeded", output: { value: 42 } });
  });

  it("throws typed errors with code, retryable, status and the execution", async () => {
    const failed = await runtime.invoke("lab.bad_output", {}, { limits: ROOMY }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ToolRuntimeError);
    expect(failed).toMatchObject({ code: "invalid_output", retryable: false, status: 502, execution: { status: "failed" } });
    const missing = await runtime.invoke("no.such.tool", {}).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: "tool_not_found", status: 404 });
    const offline = await createClient({ baseUrl: "http://127.0.0.1:9", apiKey: DEV_KEY }).listTools().catch((e: unknown) => e);
    expect(offline).toMatchObject({ code: "network_error", retryable: true });
  });

  it("starts, polls and cancels", async () => {
    const started = await runtime.start("demo.countdown", { from: 30, interval_ms: 100 });
    expect(started.status).toBe("running");
    expect((await runtime.get(started.execution_id)).status).toBe("running");
    const cancelled = await runtime.cancel(started.execution_id);
    expect(cancelled).toMatchObject({ status: "cancelled", cancellation: { outcome: "cooperative" } });
  });

  it("lists tools and describes one", async () => {
    expect((await runtime.listTools()).tools.map((t) => t.name)).toContain("math.evaluate");
    expect((await runtime.getTool("text.stats")).versions[0].providers[0].provider).toBe("std");
  });

  it("streams every event once, in order, across a cut connection", async () => {
    let cuts = 0;
    // Between the client and the network: the first stream response is broken off after 3 events.
    const cutting: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).endsWith("/stream") || cuts > 0 || !res.body) return res;
      cuts++;
      let frames = 0;
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          frames += (new TextDecoder().decode(value).match(/\nid: |^id: /g) ?? []).length;
          if (frames >= 3) {
            await reader.cancel();
            controller.error(new Error("connection cut"));
          }
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const client = createClient({ baseUrl, apiKey: DEV_KEY, fetch: cutting });
    const { execution_id } = await client.start("demo.countdown", { from: 4, interval_ms: 100 });
    const events: StreamEvent[] = [];
    for await (const e of client.stream(execution_id)) events.push(e);
    expect(cuts).toBe(1);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe("start");
    expect(events.at(-1)!.type).toBe("done");
  });
});
