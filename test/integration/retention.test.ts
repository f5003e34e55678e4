/**
 * docs/contract.md#retention as a caller meets it: a finished execution answers GET /v1/executions/{id} for
 * the retention window, to its last millisecond, then 404 — whether it ran at the edge (its
 * record in the audit store) or in an execution object (deleted by its own alarm). The test
 * owns the clock: the Worker, its objects and this file share one isolate, so a faked `Date`
 * is the runtime's clock too (timers stay real). It reads at the window's last millisecond and
 * at the first one after it, from the instant the execution ended (as the execution index
 * reports it), so no answer depends on how fast the machine is.
 */
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { send } from "./worker-http.ts";

/** The window under test (EXECUTION_RETENTION_MS is deployment configuration). */
const RETENTION_MS = 3_600_000;
const limits = env.TENANT_LIMITS as unknown as { default: Record<string, unknown> };
/** The shipped configuration with this retention (and keys no longer-lived than it: src/config.ts refuses that). */
const withRetention = Object.assign({}, env, {
  EXECUTION_RETENTION_MS: String(RETENTION_MS),
  TENANT_LIMITS: { ...limits, default: { ...limits.default, idempotency_ttl_ms: RETENTION_MS } },
});
const key = env.DEV_API_KEY;
const get = (id: string) => send(withRetention, "GET", `/v1/executions/${id}`, key);

/** From now on the runtime's clock reads `t` (and stands still). */
function clockAt(t: number): void {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(t);
}

afterEach(() => {
  vi.useRealTimers();
});

/** When `id` ended, from the execution index (bounded wait for the audit pipeline to fill it). */
async function endedAt(id: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const listed = await send(withRetention, "GET", "/v1/executions?limit=100", key);
    const row = listed.json.executions?.find((e: { execution_id: string }) => e.execution_id === id);
    if (row?.ended_at) return Date.parse(row.ended_at);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${id} never reached the execution index`);
}

describe("retention (docs/contract.md#retention)", () => {
  it("answers a fast-path execution's id to the end of its window, then 404 execution_not_found", async () => {
    const done = await send(withRetention, "POST", "/v1/executions", key, {
      tool: "math.evaluate",
      input: { expression: "2 + 2" },
      limits: { timeout_ms: 20_000 },
    });
    expect(done.status).toBe(200);
    const id = done.json.execution_id;
    expect(id).toMatch(/^exec_e/); // ran at the edge
    const end = (await endedAt(id)) + RETENTION_MS;
    clockAt(end - 1);
    expect(await get(id)).toMatchObject({ status: 200, json: { execution_id: id, output: { value: 4 } } });
    clockAt(end);
    expect(await get(id)).toMatchObject({ status: 404, json: { error: { code: "execution_not_found" } } });
  });

  it("answers an execution object's id until its retention alarm, at the end of its window, has deleted it", async () => {
    const started = await send(withRetention, "POST", "/v1/executions", key, {
      tool: "lab.echo",
      mode: "async",
      input: { keep: "an hour" },
      limits: { timeout_ms: 20_000 },
    });
    expect(started.status).toBe(202);
    const id: string = started.json.execution_id;
    expect(id).toMatch(/^exec_[0-9a-f]{64}$/); // an execution object
    let finished = await get(id);
    for (let i = 0; i < 100 && finished.json.status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 50));
      finished = await get(id);
    }
    expect(finished.json).toMatchObject({ execution_id: id, status: "succeeded", output: { keep: "an hour" } });
    const object = env.EXECUTIONS.get(env.EXECUTIONS.idFromString(id.slice("exec_".length)));
    const end = (await endedAt(id)) + RETENTION_MS;
    // Its alarm, run in the window's last millisecond, keeps it.
    clockAt(end - 1);
    expect(await runDurableObjectAlarm(object)).toBe(true);
    expect(await get(id)).toMatchObject({ status: 200, json: { execution_id: id, status: "succeeded" } });
    // Run once the window is over, it deletes it.
    clockAt(end);
    expect(await runDurableObjectAlarm(object)).toBe(true);
    expect(await get(id)).toMatchObject({ status: 404, json: { error: { code: "execution_not_found" } } });
  });
});
