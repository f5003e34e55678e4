/**
 * No tenant can take a tool away from another (docs/contract.md#circuit-breakers): a provider's statistics, breakers
 * and liveness are shared by every tenant, so only the provider's own faults may move them; a
 * half-open breaker's trial cannot lock a tool. Overload shed with a retryable refusal, never
 * reported as the provider's timeout, is tested under load in test/load/overload.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { asAdmin, bearer, call } from "./http.ts";
import { tenant } from "./tenants.ts";
import { TERMINAL_STATUSES } from "../../src/contract.ts";

const newKey = async (t: string) =>
  (
    await asAdmin("POST", "/v1/admin/keys", {
      tenant: t,
      agent: "dev-agent",
      capabilities: ["network:*"],
      channels: ["*"],
    })
  ).body.key as string;
const as = (key: string) => (body: unknown) => call("POST", "/v1/executions", body, bearer(key));

async function offering(tool: string, provider: string) {
  const view = await call("GET", `/v1/tools/${tool}`);
  return view.body.versions[0].providers.find((p: { provider: string }) => p.provider === provider);
}

/**
 * Each execution's view once it has ended (a terminal status, docs/contract.md#statuses). One
 * that has not ended when the bound runs out fails the test by its id: every one of them has a
 * budget, and one that never ends is the very fault this file looks for.
 */
async function settled(key: string, ids: string[]): Promise<any[]> {
  const views: any[] = [];
  for (const id of ids) {
    let view: any;
    for (let i = 0; i < 150; i++) {
      view = (await call("GET", `/v1/executions/${id}`, undefined, bearer(key))).body;
      if (TERMINAL_STATUSES.includes(view.status)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(TERMINAL_STATUSES, `execution ${id} has not ended: ${view.status}`).toContain(view.status);
    views.push(view);
  }
  return views;
}

// What these tests teach the registry about std and lab (samples, breakers) is forgotten after them.
afterAll(async () => {
  for (const provider of ["std", "lab"]) await asAdmin("DELETE", `/v1/admin/providers/${provider}/health`);
});

describe("fair breakers and liveness", () => {
  it("lets tenant A's short budgets, crashes and overload change nothing of what tenant B gets from a healthy provider", async () => {
    await asAdmin("DELETE", "/v1/admin/providers/std/health");
    const [a, b] = [await newKey(tenant("narrow")), await newKey(`b-${crypto.randomUUID()}`)];
    const countdown = { tool: "demo.countdown", input: { from: 2, interval_ms: 50 }, limits: { timeout_ms: 20_000 } };
    expect((await as(b)(countdown)).body.status).toBe("succeeded");

    // A's own short budget: six calls time out, well inside the tool's latency class.
    const short = [];
    for (let i = 0; i < 6; i++)
      short.push(
        await as(a)({
          tool: "demo.countdown",
          mode: "async",
          input: { from: 10, interval_ms: 100 },
          limits: { timeout_ms: 300 },
        }),
      );
    const ended = await settled(
      a,
      short.filter((r) => r.status === 202).map((r) => r.body.execution_id),
    );
    expect(ended.length).toBeGreaterThan(0);
    // Each ran out of its own budget (or, on a busy machine, was shed before its provider was called).
    for (const v of ended)
      expect([v.status, v.error?.code]).toEqual(
        v.error?.code === "overloaded" ? ["failed", "overloaded"] : ["timed_out", "timeout"],
      );
    // A's crashes of another tool, and A's overload (a narrow tenant asked for far more than its limit).
    for (let i = 0; i < 5; i++)
      expect((await as(a)({ tool: "lab.crash", input: {}, limits: { timeout_ms: 5_000 } })).body.error.code).toBe(
        "provider_crashed",
      );
    const flood = await Promise.all(
      Array.from({ length: 20 }, () =>
        as(a)({
          tool: "demo.countdown",
          mode: "async",
          input: { from: 3, interval_ms: 100 },
          limits: { timeout_ms: 5_000 },
        }),
      ),
    );
    expect(flood.filter((r) => r.status === 429).length).toBeGreaterThan(0);

    // B sees the same healthy provider as before.
    const std = await offering("demo.countdown", "std");
    expect(std).toMatchObject({ breaker: "closed", alive: true });
    expect(std.error_rate ?? 0).toBe(0);
    const after = await as(b)(countdown);
    expect(after.status).toBe(200);
    expect(after.body.attempts).toEqual([expect.objectContaining({ provider: "std", outcome: "succeeded" })]);
  });

  it("decides a half-open breaker's trial by the provider's first sign of life, so a long trial does not lock the tool", async () => {
    await asAdmin("DELETE", "/v1/admin/providers/lab/health");
    const key = await newKey(`trial-${crypto.randomUUID()}`);
    // Two crashes open lab.long's breaker (2 failures in 30 s, 2 s cooldown).
    for (let i = 0; i < 2; i++)
      await as(key)({ tool: "lab.long", input: { crash: true }, limits: { timeout_ms: 10_000 } });
    expect(await offering("lab.long", "lab")).toMatchObject({ breaker: "open" });
    for (let i = 0; i < 50 && (await offering("lab.long", "lab")).breaker !== "half_open"; i++)
      await new Promise((r) => setTimeout(r, 100));
    // The trial: a 20-second run that says at once it has started.
    const trial = await as(key)({
      tool: "lab.long",
      mode: "async",
      input: { ms: 20_000 },
      limits: { timeout_ms: 60_000 },
    });
    expect(trial.status).toBe(202);
    // Long before it finishes, the breaker is closed and other calls are served.
    let served: any;
    for (let i = 0; i < 50; i++) {
      served = await as(key)({ tool: "lab.long", input: { ms: 10 }, limits: { timeout_ms: 10_000 } });
      if (served.status === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(served.status).toBe(200);
    expect((await call("GET", `/v1/executions/${trial.body.execution_id}`, undefined, bearer(key))).body.status).toBe(
      "running",
    );
    await call("POST", `/v1/executions/${trial.body.execution_id}/cancel`, {}, bearer(key));
  });
});

describe("handlers that cannot starve the machine", () => {
  it("answers text.stats on 1,000,000 adversarial characters within its latency class", async () => {
    const text = ". ".repeat(500_000);
    const res = await call("POST", "/v1/executions", { tool: "text.stats", input: { text } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "succeeded", output: { characters: 1_000_000 } });
  });
});
