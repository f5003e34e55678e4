/** Opt-in retries (client/retry.ts): only retryable failures, only calls that cannot take effect twice. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { createClient, RequestError, RuntimeError, type RetryPolicy } from "../../../client/index.ts";
import { retryDelay } from "../../../client/retry.ts";
import { localError } from "../../../client/errors.ts";
import { envelope, ok, scripted } from "./fake-runtime.ts";

const busy = (o: Parameters<typeof envelope>[4] = {}) => envelope("overloaded", "runtime_error", true, 503, o);
const view = { execution_id: "ex_1", status: "succeeded", output: { value: 42 } };
const client = (fetch: typeof globalThis.fetch, retries: RetryPolicy = { max: 3, baseMs: 0 }) =>
  createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch, retries });

afterEach(() => {
  vi.useRealTimers();
});

describe("the client's retries", () => {
  it("are off unless asked for", async () => {
    const rt = scripted(busy(), ok({ tools: [] }));
    const err = await createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch: rt.fetch })
      .listTools()
      .catch((e) => e);
    expect(err).toBeInstanceOf(RuntimeError);
    expect(rt.seen).toHaveLength(1);
  });

  it("retry a read after a retryable refusal and a network fault", async () => {
    const rt = scripted(busy(), new TypeError("fetch failed"), ok({ tools: [] }));
    expect(await client(rt.fetch).listTools()).toEqual({ tools: [] });
    expect(rt.seen.map((s) => s.method)).toEqual(["GET", "GET", "GET"]);
  });

  it("give up after max retries with the last error", async () => {
    const rt = scripted(busy());
    const err = await client(rt.fetch, { max: 2, baseMs: 0 })
      .get("ex_1")
      .catch((e) => e);
    expect(err).toMatchObject({ code: "overloaded" });
    expect(rt.seen).toHaveLength(3);
  });

  it("never retry what the runtime says is not retryable", async () => {
    const rt = scripted(envelope("invalid_request", "request_error", false, 400), ok({}));
    expect(
      await client(rt.fetch)
        .listTools()
        .catch((e) => e),
    ).toBeInstanceOf(RequestError);
    expect(rt.seen).toHaveLength(1);
  });

  it("never send a call that creates an execution twice without an idempotency key", async () => {
    const rt = scripted(busy());
    expect(
      await client(rt.fetch)
        .invoke("math.evaluate", {})
        .catch((e) => e),
    ).toMatchObject({ code: "overloaded" });
    expect(
      await client(rt.fetch)
        .start("math.evaluate", {})
        .catch((e) => e),
    ).toMatchObject({ code: "overloaded" });
    expect(rt.seen).toHaveLength(2);
  });

  it("retry a call under an idempotency key, sending the same envelope", async () => {
    const rt = scripted(busy(), ok(view));
    expect(await client(rt.fetch).invoke("math.evaluate", { expression: "6 * 7" }, { idempotency_key: "k-1" })).toEqual(
      view,
    );
    expect(rt.seen).toHaveLength(2);
    expect(rt.seen[1].body).toEqual(rt.seen[0].body);
    expect(rt.seen[1].body).toMatchObject({ idempotency_key: "k-1", mode: "sync" });
  });

  it("never retry approve, reject or createKey; do retry cancel and dry runs", async () => {
    const rt = scripted(busy());
    const c = client(rt.fetch, { max: 1, baseMs: 0 });
    await c.approve("ex_1").catch(() => {});
    await c.reject("ex_1", "no").catch(() => {});
    await c.createKey({ tenant: "t", agent: "a" }).catch(() => {});
    expect(rt.seen).toHaveLength(3);
    await c.cancel("ex_1").catch(() => {});
    await c.dryRun("math.evaluate", {}).catch(() => {});
    expect(rt.seen).toHaveLength(7);
  });

  it("let a call turn retries off, or on, whatever the client says", async () => {
    const off = scripted(busy(), ok({ tools: [] }));
    await client(off.fetch)
      .listTools({ retries: false })
      .catch(() => {});
    expect(off.seen).toHaveLength(1);
    const on = scripted(busy(), ok({ tools: [] }));
    expect(
      await createClient({ baseUrl: "http://x.invalid", apiKey: "trt_x", fetch: on.fetch }).listTools({
        retries: { max: 1, baseMs: 0 },
      }),
    ).toEqual({ tools: [] });
  });

  it("wait as long as Retry-After says before trying again", async () => {
    vi.useFakeTimers();
    const rt = scripted(busy({ headers: { "retry-after": "3" } }), ok({ tools: [] }));
    const answer = client(rt.fetch).listTools();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(rt.seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toEqual({ tools: [] });
    expect(rt.seen).toHaveLength(2);
  });

  it("wait as long as details.retry_after_ms says when there is no header", async () => {
    vi.useFakeTimers();
    const rt = scripted(
      envelope("rate_limited", "request_error", true, 429, { details: { retry_after_ms: 700 } }),
      ok({ tools: [] }),
    );
    const answer = client(rt.fetch).listTools();
    await vi.advanceTimersByTimeAsync(699);
    expect(rt.seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await answer).toEqual({ tools: [] });
  });

  it("do not wait longer than maxDelayMs or past the call's timeoutMs: the error comes at once", async () => {
    const long = scripted(busy({ headers: { "retry-after": "60" } }), ok({}));
    expect(
      await client(long.fetch, { max: 3, baseMs: 0, maxDelayMs: 10_000 })
        .listTools()
        .catch((e) => e),
    ).toMatchObject({ code: "overloaded", retryAfterMs: 60_000 });
    expect(long.seen).toHaveLength(1);
    const late = scripted(busy({ headers: { "retry-after": "5" } }), ok({}));
    expect(
      await client(late.fetch)
        .listTools({ timeoutMs: 1_000 })
        .catch((e) => e),
    ).toMatchObject({ code: "overloaded" });
    expect(late.seen).toHaveLength(1);
  });

  it("back off exponentially with full jitter when the runtime gives no wait", () => {
    const err = localError("network_error", "down");
    const policy = { max: 5, baseMs: 100 };
    expect([0, 1, 2, 3].map((n) => retryDelay(err, n, policy, () => 0.999))).toEqual([99, 199, 399, 799]);
    expect(retryDelay(err, 2, policy, () => 0)).toBe(0);
    expect(retryDelay(err, 5, policy, () => 0.5)).toBeUndefined();
    expect(retryDelay(localError("invalid_argument", "bad"), 0, policy)).toBeUndefined();
    expect(retryDelay(new Error("not ours"), 0, policy)).toBeUndefined();
  });
});
