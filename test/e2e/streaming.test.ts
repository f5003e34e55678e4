import { describe, expect, it } from "vitest";
import { asAdmin, baseUrl, bearer, call, DEV_KEY, execute } from "./http.ts";
import { hold, newLatch, release } from "./latch.ts";
import { collect, contiguousFromOne, readSse, type Received } from "./sse.ts";
import { tenant } from "./tenants.ts";

async function startCountdown(from: number, intervalMs: number): Promise<string> {
  const res = await execute({ tool: "demo.countdown", mode: "async", input: { from, interval_ms: intervalMs } });
  expect(res.status).toBe(202);
  return res.body.execution_id;
}

const types = (events: Received[]) => events.map((e) => e.type);

describe("SSE streams (docs/contract.md#streaming)", () => {
  it("streams a POST with stream: true from start to exactly one done", async () => {
    const res = await fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
      body: JSON.stringify({ tool: "demo.countdown", stream: true, input: { from: 3, interval_ms: 20 } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("x-execution-id")).toMatch(/^exec_/);
    const events = await readSse(res);
    expect(types(events)[0]).toBe("start");
    expect(types(events).filter((t) => t === "done" || t === "error")).toEqual(["done"]);
    expect(events.at(-1)!.payload.data.output).toEqual({ counted: [3, 2, 1], finished: true });
    expect(types(events)).toEqual(expect.arrayContaining(["progress", "partial", "stdout"]));
    expect(contiguousFromOne(events)).toBe(true);
  });

  it("gives 20 concurrent subscribers every event in the same order", async () => {
    const id = await startCountdown(8, 60);
    const all = await Promise.all(Array.from({ length: 20 }, () => collect(id)));
    for (const events of all) {
      expect(contiguousFromOne(events)).toBe(true);
      expect(events.map((e) => e.id)).toEqual(all[0].map((e) => e.id));
      expect(types(events)).toEqual(types(all[0]));
    }
    expect(types(all[0]).at(-1)).toBe("done");
    expect(all[0]).toHaveLength(1 + 8 * 3 + 1); // start, 3 events per step, done
  });

  it("resumes a cut connection from Last-Event-ID with no gap and no repeat", async () => {
    const id = await startCountdown(6, 150);
    const lastEventIds: (string | null)[] = [];
    let cut = false;
    // Between EventSource and the network: the first response is broken off after 4 events.
    const cuttingFetch: typeof fetch = async (input, init) => {
      lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
      const res = await fetch(input, init);
      if (cut || !res.body) return res;
      cut = true;
      let frames = 0;
      const reader = res.body.getReader();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          frames +=
            new TextDecoder().decode(value).split("\nid: ").length -
            1 +
            (new TextDecoder().decode(value).startsWith("id: ") ? 1 : 0);
          if (frames >= 4) {
            await reader.cancel();
            controller.error(new Error("connection cut"));
          }
        },
      });
      return new Response(body, { status: res.status, headers: res.headers });
    };
    const events = await collect(id, { fetch: cuttingFetch });
    expect(lastEventIds[0]).toBeNull();
    expect(lastEventIds.length).toBeGreaterThanOrEqual(2);
    expect(Number(lastEventIds[1])).toBeGreaterThanOrEqual(1);
    expect(contiguousFromOne(events)).toBe(true);
    expect(types(events).at(-1)).toBe("done");
  });

  it("replays everything to a subscriber that arrives after the end, then answers 204 past it", async () => {
    const id = await startCountdown(2, 0);
    for (let i = 0; i < 100 && (await call("GET", `/v1/executions/${id}`)).body.status !== "succeeded"; i++)
      await new Promise((r) => setTimeout(r, 20));
    const events = await collect(id);
    expect(types(events)[0]).toBe("start");
    expect(types(events).at(-1)).toBe("done");
    expect(contiguousFromOne(events)).toBe(true);

    const tail = await collect(id, { query: `?after=${events.length - 2}` });
    expect(tail.map((e) => e.id)).toEqual([events.length - 1, events.length]);

    const past = await fetch(`${baseUrl}/v1/executions/${id}/stream`, {
      headers: { "last-event-id": String(events.length), ...bearer(DEV_KEY) },
    });
    expect(past.status).toBe(204);
  });

  it("ends the stream of a failing tool with exactly one error event", async () => {
    const res = await fetch(`${baseUrl}/v1/executions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
      body: JSON.stringify({ tool: "lab.crash", stream: true, input: {} }),
    });
    const events = await readSse(res);
    expect(types(events)).toEqual(["start", "error"]);
    expect(events[1].payload.data).toMatchObject({ status: "failed", error: { code: "provider_crashed" } });
  });

  it("refuses a malformed Last-Event-ID header, a malformed ?after= and an unknown execution", async () => {
    const id = await startCountdown(1, 0);
    const header = await call("GET", `/v1/executions/${id}/stream`, undefined, { "last-event-id": "abc" });
    expect(header.status).toBe(400);
    expect(header.body.error.code).toBe("invalid_request");
    const query = await call("GET", `/v1/executions/${id}/stream?after=abc`);
    expect(query.status).toBe(400);
    expect(query.body.error.code).toBe("invalid_request");
    const unknown = await call("GET", `/v1/executions/exec_${"b".repeat(64)}/stream`);
    expect(unknown.status).toBe(404);
  });

  it("counts every open stream against its tenant: over max_streams is 429, and an ended stream frees its slot", async () => {
    // A "slots" tenant may have 3 streams open at once (test/e2e/tenants.ts).
    const key = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: tenant("slots"), agent: "dev-agent", channels: ["*"] })
    ).body.key;
    const as = { ...bearer(key) };
    // It runs until this test releases it, so its streams stay open for as long as the test needs;
    // it ticks meanwhile, so a reader that goes away is noticed at the next write.
    const latch = newLatch();
    const started = await call(
      "POST",
      "/v1/executions",
      { ...hold(latch, { heed_cancel: true, tick_ms: 100 }), mode: "async", limits: { timeout_ms: 60_000 } },
      as,
    );
    expect(started.status).toBe(202);
    const path = `${baseUrl}/v1/executions/${started.body.execution_id}/stream`;
    const open = await Promise.all([1, 2, 3].map(() => fetch(path, { headers: as })));
    expect(open.map((r) => r.status)).toEqual([200, 200, 200]);

    const fourth = await call("GET", `/v1/executions/${started.body.execution_id}/stream`, undefined, as);
    expect(fourth.status).toBe(429);
    expect(fourth.body.error).toMatchObject({ code: "rate_limited", details: { reason: "streams", limit: 3 } });
    // A streamed call is refused the same way, before anything starts.
    const streamed = await call(
      "POST",
      "/v1/executions",
      { tool: "demo.countdown", stream: true, input: { from: 1 } },
      as,
    );
    expect(streamed.status).toBe(429);
    expect(streamed.body.error.details.reason).toBe("streams");

    // A reader that goes away gives its slot back; so do streams that run to the end.
    const reopen = async () => {
      for (let i = 0; i < 50; i++) {
        const again = await fetch(path, { headers: as });
        if (again.status === 200) return again;
        await again.body?.cancel();
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("no stream slot came back");
    };
    try {
      await open[0].body!.cancel();
      open[0] = await reopen();
    } finally {
      await release(latch);
    }
    for (const res of open) expect(types(await readSse(res)).at(-1)).toBe("done");
    const after = await Promise.all([reopen(), reopen(), reopen()]);
    for (const res of after) expect(types(await readSse(res)).at(-1)).toBe("done");
  });
});
