/** AbortSignal and timeoutMs on the client's calls and streams (client/call-options.ts). */
import { describe, expect, it } from "vitest";
import { ClientTimeoutError, createClient, type StreamEvent } from "../../../client/index.ts";
import { frame, hanging, openStream, scripted } from "./fake-runtime.ts";

const base = { baseUrl: "http://x.invalid", apiKey: "trt_x" };

describe("aborting and timing out calls", () => {
  it("aborts the request with the caller's reason when the caller's signal aborts", async () => {
    const rt = hanging();
    const controller = new AbortController();
    const answer = createClient({ ...base, fetch: rt.fetch })
      .invoke("math.evaluate", {}, { signal: controller.signal })
      .catch((e) => e);
    const reason = new Error("user pressed stop");
    controller.abort(reason);
    expect(await answer).toBe(reason);
    expect(rt.seen[0].signal?.aborted).toBe(true);
  });

  it("sends nothing when the signal is already aborted", async () => {
    const rt = scripted(new Response("{}"));
    const err = await createClient({ ...base, fetch: rt.fetch })
      .get("ex_1", { signal: AbortSignal.abort() })
      .catch((e) => e);
    expect(err).toMatchObject({ name: "AbortError" });
    expect(rt.seen).toHaveLength(0);
  });

  it("throws ClientTimeoutError when timeoutMs passes, and aborts the request", async () => {
    const rt = hanging();
    const err = await createClient({ ...base, fetch: rt.fetch })
      .listTools({ timeoutMs: 20 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ClientTimeoutError);
    expect(err).toMatchObject({ code: "client_timeout", local: true, details: { timeout_ms: 20 } });
    expect(rt.seen[0].signal?.aborted).toBe(true);
  });

  it("applies the client's timeoutMs to every call unless the call sets its own", async () => {
    const rt = hanging();
    const c = createClient({ ...base, fetch: rt.fetch, timeoutMs: 20 });
    expect(await c.getTool("a").catch((e) => e)).toMatchObject({ code: "client_timeout", details: { timeout_ms: 20 } });
    expect(await c.getTool("a", { timeoutMs: 30 }).catch((e) => e)).toMatchObject({
      code: "client_timeout",
      details: { timeout_ms: 30 },
    });
  });

  it("times out while reading a slow answer, not only while waiting for it", async () => {
    const rt = scripted(({ signal }) => openStream(['{"tools":'], signal, { "content-type": "application/json" }));
    expect(
      await createClient({ ...base, fetch: rt.fetch })
        .listTools({ timeoutMs: 20 })
        .catch((e) => e),
    ).toBeInstanceOf(ClientTimeoutError);
  });
});

describe("aborting and timing out streams", () => {
  it("ends a stream quietly when the caller aborts it mid-way, and closes its request", async () => {
    const rt = scripted(({ signal }) => openStream([frame(1, "start"), frame(2, "stdout", "hi")], signal));
    const controller = new AbortController();
    const seen: StreamEvent[] = [];
    for await (const e of createClient({ ...base, fetch: rt.fetch }).stream("ex_1", { signal: controller.signal })) {
      seen.push(e);
      if (e.seq === 2) controller.abort();
    }
    expect(seen.map((e) => e.type)).toEqual(["start", "stdout"]);
    expect(rt.seen).toHaveLength(1);
    expect(rt.seen[0].signal?.aborted).toBe(true);
  });

  it("throws ClientTimeoutError from a stream whose timeoutMs passes", async () => {
    const rt = scripted(({ signal }) => openStream([frame(1, "start")], signal));
    const seen: number[] = [];
    const err = await (async () => {
      for await (const e of createClient({ ...base, fetch: rt.fetch }).stream("ex_1", { timeoutMs: 30 }))
        seen.push(e.seq);
    })().catch((e) => e);
    expect(seen).toEqual([1]);
    expect(err).toBeInstanceOf(ClientTimeoutError);
  });

  it("aborts a streamed call's events through the signal given to invokeStream", async () => {
    const rt = scripted(({ signal }) => openStream([frame(1, "start")], signal, { "x-execution-id": "ex_9" }));
    const controller = new AbortController();
    const call = await createClient({ ...base, fetch: rt.fetch }).invokeStream(
      "demo.countdown",
      {},
      { signal: controller.signal },
    );
    expect(call.execution_id).toBe("ex_9");
    const types: string[] = [];
    for await (const e of call.events) {
      types.push(e.type);
      controller.abort();
    }
    expect(types).toEqual(["start"]);
    expect(rt.seen[0].signal?.aborted).toBe(true);
    expect(rt.seen[0].body).toMatchObject({ stream: true, mode: "sync" });
    expect(rt.seen[0].body).not.toHaveProperty("signal");
  });
});
