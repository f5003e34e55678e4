/**
 * One execution serves at most MAX_SUBSCRIBERS event streams at once (docs/contract.md#streaming):
 * past that, `GET /v1/executions/{id}/stream` answers 429 `rate_limited` with reason
 * `subscribers` and a Retry-After, and serves again once a stream has gone. The first
 * MAX_SUBSCRIBERS are opened on the execution object directly (the edge adds nothing to
 * them); the one that matters comes over HTTP. The execution is `lab.hold`, which runs until
 * the test releases it and emits nothing meanwhile, so its streams stay open and quiet.
 */
import { createExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { executionScope } from "../../src/auth/roles.ts";
import { objectStub } from "../../src/execution/ids.ts";
import worker from "../../src/index.ts";
import { MAX_SUBSCRIBERS } from "../../src/stream/fanout.ts";
import { mintKey, send, withTenantLimits } from "./worker-http.ts";

/** Streams of its own for the tenant are not what this test is about: room for all of them. */
const e = withTenantLimits({ "subs-*": { max_streams: 5_000, requests_per_second: 1000, burst: 5_000 } });

/** GET the execution's stream; a live stream's answer is its head (the caller lets the body go). */
const openStream = (id: string, key: string) =>
  worker.fetch(
    new Request(`http://localhost/v1/executions/${id}/stream`, {
      headers: { authorization: `Bearer ${key}` },
    }) as Request<unknown, IncomingRequestCfProperties>,
    e,
    createExecutionContext(),
  );

describe("an execution's subscribers", () => {
  it(`refuses stream ${MAX_SUBSCRIBERS + 1} over HTTP with 429 subscribers, and serves again when one goes`, async () => {
    const tenant = `subs-${crypto.randomUUID()}`;
    const key = await mintKey(e, tenant);
    const latch = crypto.randomUUID();
    const started = await send(e, "POST", "/v1/executions", key, {
      tool: "lab.hold",
      mode: "async",
      input: { latch, max_ms: 120_000, heed_cancel: true },
      limits: { timeout_ms: 120_000 },
    });
    expect(started.status).toBe(202);
    const id: string = started.json.execution_id;
    const stub = objectStub(e, id);
    const scope = executionScope({ tenant, agent: "dev-agent", capabilities: [], channels: ["*"] });
    const open: ReadableStream<Uint8Array>[] = [];
    try {
      for (let batch = 0; open.length < MAX_SUBSCRIBERS; batch++) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(100, MAX_SUBSCRIBERS - open.length) }, () => stub.events(scope, 0)),
        );
        for (const a of answers) {
          if (!a.ok || a.value.kind !== "stream") throw new Error(`subscriber ${open.length + 1} was refused`);
          open.push(a.value.stream);
        }
      }
      expect((await stub.streams()).subscribers).toBe(MAX_SUBSCRIBERS);

      const refused = await openStream(id, key);
      if (refused.status !== 429) await refused.body?.cancel();
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({
        error: { code: "rate_limited", details: { reason: "subscribers" } },
      });
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);

      // One stream goes: its place is free (bounded wait for the object to drop it).
      await open.pop()!.cancel();
      for (let i = 0; i < 100 && (await stub.streams()).subscribers >= MAX_SUBSCRIBERS; i++)
        await new Promise((r) => setTimeout(r, 50));
      const served = await openStream(id, key);
      expect(served.status).toBe(200);
      expect(served.headers.get("content-type")).toContain("text/event-stream");
      await served.body?.cancel();
    } finally {
      // Ends the execution (heed_cancel: at once), which closes every stream it serves.
      await send(e, "POST", `/v1/executions/${id}/cancel`, key, { grace_ms: 0 });
      await Promise.all(open.map((s) => s.cancel().catch(() => {})));
    }
  }, 120_000);
});
