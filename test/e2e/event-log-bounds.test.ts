/**
 * What bounds a chatty or greedy tool meets, as a caller sees them: the event log's caps
 * (docs/contract.md#streaming, src/execution/event-log-limits.ts: events per execution, bytes per event,
 * bytes per execution), cut off with one `log` event that says so and counted in the terminal
 * event, and a log of large events streamed whole, live and replayed; and output over the
 * caller's or the tenant's `max_output_bytes` ending as `resource_exceeded`.
 */
import { describe, expect, it } from "vitest";
import { MAX_EVENT_BYTES, MAX_EVENTS, MAX_LOG_BYTES } from "../../src/execution/event-log-limits.ts";
import { asAdmin, baseUrl, bearer, call, DEV_KEY, execute } from "./http.ts";
import { collect, readSse, type Received } from "./sse.ts";
import { tenant } from "./tenants.ts";

/** lab.burst's events, streamed from the POST to the end (the whole log, in order). */
async function burst(input: Record<string, unknown>): Promise<Received[]> {
  const res = await fetch(`${baseUrl}/v1/executions`, {
    method: "POST",
    headers: { "content-type": "application/json", ...bearer(DEV_KEY) },
    body: JSON.stringify({ tool: "lab.burst", stream: true, input, limits: { timeout_ms: 120_000 } }),
  });
  expect(res.status).toBe(200);
  return readSse(res);
}

const truncations = (events: Received[]) =>
  events.filter((e) => e.type === "log" && e.payload.data?.truncated === true);

describe("the event log's bounds", () => {
  it(`keeps at most ${MAX_LOG_BYTES} bytes of events, says once that the log is full, and counts what it dropped`, async () => {
    const pad = 60_000; // under the per-event bound: only the log's total is in the way
    const count = Math.ceil(MAX_LOG_BYTES / pad) + 10;
    const started = await execute({
      tool: "lab.burst",
      mode: "async",
      input: { count, pad },
      limits: { timeout_ms: 120_000 },
    });
    expect(started.status).toBe(202);
    const events = await collect(started.body.execution_id, { timeoutMs: 120_000 });
    const stdout = events.filter((e) => e.type === "stdout");
    expect(stdout.length).toBeLessThan(count);
    expect(stdout.map((e) => e.payload.data.i)).toEqual(stdout.map((_, i) => i)); // the first ones, in order
    const kept = stdout.reduce((n, e) => n + JSON.stringify(e.payload.data).length, 0);
    expect(kept).toBeLessThanOrEqual(MAX_LOG_BYTES);
    // One truncation notice, right after the last event kept; nothing of the tool's after it.
    expect(truncations(events)).toHaveLength(1);
    expect(events.map((e) => e.type).slice(1 + stdout.length)).toEqual(["log", "done"]);
    expect(events.at(-1)!.payload.data).toMatchObject({
      output: { emitted: count },
      dropped_events: count - stdout.length,
    });
  }, 180_000);

  it("streams a burst of large events whole to the caller that started it (no reader dropped for falling behind)", async () => {
    // ~2.4 MiB sent at once: more than a reader is ever sent ahead (MAX_QUEUED_BYTES), so the
    // stream has to catch up from the log while the tool is still emitting.
    const count = 40;
    const events = await burst({ count, pad: 60_000 });
    expect(events.map((e) => e.type)).toEqual(["start", ...Array(count).fill("stdout"), "done"]);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!.payload.data).toMatchObject({ output: { emitted: count } });
  }, 120_000);

  it(`keeps at most ${MAX_EVENTS} events, says once that the log is full, and counts what it dropped`, async () => {
    const count = MAX_EVENTS + 50;
    const started = await execute({
      tool: "lab.burst",
      mode: "async",
      input: { count },
      limits: { timeout_ms: 120_000 },
    });
    expect(started.status).toBe(202);
    const events = await collect(started.body.execution_id, { timeoutMs: 120_000 });
    const stdout = events.filter((e) => e.type === "stdout");
    expect(events.length - 2).toBeLessThanOrEqual(MAX_EVENTS); // all but the start and the terminal event
    expect(truncations(events)).toHaveLength(1);
    expect(events.map((e) => e.type).slice(1 + stdout.length)).toEqual(["log", "done"]);
    expect(events.at(-1)!.payload.data).toMatchObject({
      output: { emitted: count },
      dropped_events: count - stdout.length,
    });
    // The stored log is what a late subscriber replays: the same, with no gap.
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
  }, 180_000);

  it(`drops an event over ${MAX_EVENT_BYTES} bytes on its own, counted, without calling the log full`, async () => {
    const events = await burst({ count: 3, pad: MAX_EVENT_BYTES + 1 });
    expect(events.map((e) => e.type)).toEqual(["start", "done"]);
    expect(events.at(-1)!.payload.data).toMatchObject({ output: { emitted: 3 }, dropped_events: 3 });
  });
});

describe("output over max_output_bytes", () => {
  it("ends as resource_exceeded when the output is over the caller's limit", async () => {
    const res = await execute({
      tool: "lab.echo",
      input: { text: "x".repeat(300) },
      limits: { timeout_ms: 20_000, max_output_bytes: 100 },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: "failed",
      error: { code: "resource_exceeded", retryable: false, details: { limit: 100 } },
    });
    expect(res.body.error.details.observed).toBeGreaterThan(100);
    expect(res.body.output).toBeUndefined();
  });

  it("ends as resource_exceeded when the output is over the tenant's maximum, whatever the caller asks", async () => {
    // The narrow family's tenants may receive 2,048 bytes of output (test/e2e/tenants.ts).
    const key = (
      await asAdmin("POST", "/v1/admin/keys", { tenant: tenant("narrow"), agent: "dev-agent", channels: ["*"] })
    ).body.key;
    const res = await call(
      "POST",
      "/v1/executions",
      {
        tool: "lab.echo",
        input: { text: "x".repeat(3_000) },
        limits: { timeout_ms: 10_000, max_output_bytes: 1_000_000 },
      },
      bearer(key),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      status: "failed",
      error: { code: "resource_exceeded", details: { limit: 2_048 } },
    });
  });
});
