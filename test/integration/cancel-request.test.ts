/**
 * The cancel request's own rules (docs/contract.md#cancellation): its body is at most 1 KiB,
 * `grace_ms` is an integer from 0 to 30,000, and without one the provider gets 5 s to stop.
 * The execution is `lab.hold`, which ignores its stop notice and runs until the test releases
 * its latch, so nothing here races the call's own end.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { send } from "./worker-http.ts";

const key = env.DEV_API_KEY;

/** An async lab.hold on a fresh latch, once it is running; `release()` lets it return. */
async function held(heedCancel = false): Promise<{ id: string; release: () => Promise<void> }> {
  const latch = crypto.randomUUID();
  const started = await send(env, "POST", "/v1/executions", key, {
    tool: "lab.hold",
    mode: "async",
    input: { latch, max_ms: 120_000, heed_cancel: heedCancel },
    limits: { timeout_ms: 120_000 },
  });
  expect(started.status).toBe(202);
  const id: string = started.json.execution_id;
  await viewUntil(id, (v) => v.status === "running");
  const release = async () => {
    const res = await send(env, "POST", "/v1/executions", key, {
      tool: "lab.release",
      input: { latch },
      limits: { timeout_ms: 20_000 },
    });
    expect(res.json.output).toEqual({ released: latch });
  };
  return { id, release };
}

/** GET until `test` holds (bounded). */
async function viewUntil(id: string, test: (view: any) => boolean): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const view = (await send(env, "GET", `/v1/executions/${id}`, key)).json;
    if (test(view)) return view;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`execution ${id} never reached the state asked for`);
}

/** `{"grace_ms": n}` padded with spaces to exactly `bytes` bytes. */
const padded = (grace: number, bytes: number) => {
  const json = JSON.stringify({ grace_ms: grace });
  return json.slice(0, -1) + " ".repeat(bytes - json.length) + "}";
};

const cancel = (id: string, raw?: string) => send(env, "POST", `/v1/executions/${id}/cancel`, key, undefined, raw);

describe("the cancel request", () => {
  it("refuses a body over 1 KiB with 413 and reads one of 1 KiB, refusing grace_ms 30,001 and taking 30,000", async () => {
    // This one stops when told, so the cancel that is taken ends it at once.
    const run = await held(true);
    const tooLarge = await cancel(run.id, padded(0, 1025));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.error).toMatchObject({ code: "payload_too_large", details: { max_bytes: 1024 } });
    const overMax = await cancel(run.id, padded(30_001, 1024));
    expect(overMax.status).toBe(400);
    expect(overMax.json.error).toMatchObject({ code: "invalid_request", details: { field: "grace_ms" } });
    // Neither refusal touched the execution.
    const view = (await send(env, "GET", `/v1/executions/${run.id}`, key)).json;
    expect(view.status).toBe("running");
    expect(view.cancellation).toBeUndefined();
    // The maximum is taken.
    const cancelled = await cancel(run.id, padded(30_000, 1024));
    expect(cancelled.status).toBe(200);
    expect(cancelled.json).toMatchObject({ status: "cancelled", cancellation: { outcome: "cooperative" } });
  });

  it("gives a provider that ignores its stop notice 5 s by default, then forces", async () => {
    const run = await held();
    try {
      const asked = Date.now();
      const res = await cancel(run.id);
      const answered = Date.now();
      expect(res.json).toMatchObject({ status: "cancelled", cancellation: { outcome: "forced" } });
      // Forced no sooner than the default grace period; and not after the maximum (30 s), which
      // a cancel without grace_ms must not get.
      expect(answered - Date.parse(res.json.cancellation.requested_at)).toBeGreaterThanOrEqual(5_000);
      expect(answered - asked).toBeLessThan(30_000);
    } finally {
      await run.release();
    }
  }, 60_000);
});
