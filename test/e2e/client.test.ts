/** The typed client (client/index.ts) against the real stack. */
import { describe, expect, it } from "vitest";
import {
  ClientTimeoutError,
  createClient,
  ExecutionError,
  LocalError,
  RegistryError,
  ToolRuntimeError,
  type StreamEvent,
} from "../../client/index.ts";
import { baseUrl, DEV_KEY, ROOMY } from "./http.ts";

const runtime = createClient({ baseUrl, apiKey: DEV_KEY });

describe("the typed client", () => {
  it("invokes a tool and returns its view", async () => {
    const view = await runtime.invoke("math.evaluate", { expression: "6 * 7" }, { limits: ROOMY });
    expect(view).toMatchObject({ status: "succeeded", output: { value: 42 } });
  });

  it("throws typed errors with code, retryable, status and the execution", async () => {
    const failed = await runtime.invoke("lab.bad_output", {}, { limits: ROOMY }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ExecutionError);
    expect(failed).toBeInstanceOf(ToolRuntimeError);
    expect(failed).toMatchObject({
      code: "invalid_output",
      retryable: false,
      status: 502,
      execution: { status: "failed" },
    });
    const missing = await runtime.invoke("no.such.tool", {}).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(RegistryError);
    expect(missing).toMatchObject({ code: "tool_not_found", status: 404 });
    const offline = await createClient({ baseUrl: "http://127.0.0.1:9", apiKey: DEV_KEY })
      .listTools()
      .catch((e: unknown) => e);
    expect(offline).toBeInstanceOf(LocalError);
    expect(offline).toMatchObject({ code: "network_error", retryable: true });
  });

  it("starts, polls and cancels", async () => {
    const started = await runtime.start("demo.countdown", { from: 600, interval_ms: 100 }); // only the cancel ends it
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

  it("retries a call under an idempotency key after its answer was lost, and gets the same execution", async () => {
    const answers: string[] = [];
    let lost = 0;
    // The first answer reaches this process and is then lost, as when a connection drops mid-answer.
    const losing: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (init?.method === "POST" && lost === 0) {
        lost++;
        answers.push(((await res.json()) as { execution_id: string }).execution_id);
        throw new TypeError("fetch failed");
      }
      return res;
    };
    const client = createClient({ baseUrl, apiKey: DEV_KEY, fetch: losing, retries: { max: 2, baseMs: 0 } });
    const key = `client-retry-${crypto.randomUUID()}`;
    const view = await client.invoke("math.evaluate", { expression: "6 * 7" }, { limits: ROOMY, idempotency_key: key });
    expect(view).toMatchObject({ status: "succeeded", output: { value: 42 } });
    expect(view.execution_id).toBe(answers[0]);

    lost = 0;
    const unkeyed = await client
      .invoke("math.evaluate", { expression: "1 + 1" }, { limits: ROOMY })
      .catch((e: unknown) => e);
    expect(unkeyed).toMatchObject({ code: "network_error" });
    expect(lost).toBe(1);
  });

  it("stops a call when its signal aborts, and throws ClientTimeoutError when its timeoutMs passes", async () => {
    const controller = new AbortController();
    const reason = new Error("stopped by the caller");
    // Aborted once the request is on its way, while the countdown runs on (past its 20 s budget: only the budget ends it).
    const aborting: typeof fetch = (input, init) => {
      const sent = fetch(input, init);
      controller.abort(reason);
      return sent;
    };
    const slow = { from: 600, interval_ms: 100 };
    const aborted = await createClient({ baseUrl, apiKey: DEV_KEY, fetch: aborting })
      .invoke("demo.countdown", slow, { limits: ROOMY, signal: controller.signal })
      .catch((e: unknown) => e);
    expect(aborted).toBe(reason);
    const late = await runtime
      .invoke("demo.countdown", slow, { limits: ROOMY, timeoutMs: 300 })
      .catch((e: unknown) => e);
    expect(late).toBeInstanceOf(ClientTimeoutError);
    expect(late).toMatchObject({ code: "client_timeout", local: true });
  });

  it("iterates the tenant's executions across pages, each one once", async () => {
    const ids: string[] = [];
    for (const text of ["one", "two two", "three three three"])
      ids.push((await runtime.invoke("text.stats", { text }, { limits: ROOMY })).execution_id);
    let pageRequests = 0;
    const counting: typeof fetch = (input, init) => (
      String(input).includes("/v1/executions?") && pageRequests++,
      fetch(input, init)
    );
    const client = createClient({ baseUrl, apiKey: DEV_KEY, fetch: counting });
    // Finished calls reach the listing through the audit queue: wait (bounded) until all three are there.
    let seen: string[] = [];
    for (let round = 0; round < 60 && !ids.every((id) => seen.includes(id)); round++) {
      if (round > 0) await new Promise((r) => setTimeout(r, 500));
      seen = [];
      pageRequests = 0;
      for await (const e of client.executions.all({ tool: "text.stats", limit: 1 })) seen.push(e.execution_id);
    }
    expect([...seen].sort()).toEqual([...ids].sort());
    expect(seen).toEqual([...ids].reverse()); // newest first
    expect(pageRequests).toBeGreaterThanOrEqual(3);
  });
});
