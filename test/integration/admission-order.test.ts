/**
 * Admission comes before level 2: a call (or a dry run) refused for its tenant's rate makes no
 * request to the intent verifier (src/pipeline/plan.ts `admit`, src/policy/request-rate.ts).
 * The Worker runs as deployed, with the real verifier behind a wrapper that counts its calls,
 * and limits that give the test's tenants a burst of 2 and a token every 20 s, so that eight
 * requests in a row meet the rate however slowly a loaded machine sends them.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index.ts";

const slow = { requests_per_second: 0.05, burst: 2, tool_requests_per_second: 0.05, tool_burst: 2 };

/** The environment as bound, but with a counted verifier and the slow family `order-*`. */
function counted(): { env: Env; asked: () => number } {
  let asked = 0;
  const real = env.INTENT_VERIFIER;
  const verifier = {
    verify(request: Parameters<typeof real.verify>[0]) {
      asked++;
      return real.verify(request);
    },
  };
  const limits = { tenants: { "order-*": slow } };
  return { env: Object.assign({}, env, { INTENT_VERIFIER: verifier, TENANT_LIMITS: limits }), asked: () => asked };
}

/** Background work (a health sample waits for the isolate's batch) is awaited once, at the end of each test. */
const contexts: ExecutionContext[] = [];
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((ctx) => waitOnExecutionContext(ctx)));
});

async function request(
  e: Env,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: any; retryAfter: string | null }> {
  const ctx = createExecutionContext();
  contexts.push(ctx);
  const init: RequestInit = {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  };
  const res = await worker.fetch(
    new Request(`http://localhost${path}`, init) as Request<unknown, IncomingRequestCfProperties>,
    e,
    ctx,
  );
  // A stream's events are read to their end; its answer is its status alone.
  const json = res.headers.get("content-type")?.includes("json") ? await res.json() : (await res.text(), null);
  return { status: res.status, json, retryAfter: res.headers.get("retry-after") };
}

function expectRateRefusals(
  answers: { status: number; json: any; retryAfter: string | null }[],
  admitted: number,
): void {
  const refused = answers.filter((a) => a.status === 429);
  expect(refused.length).toBeGreaterThanOrEqual(1);
  for (const r of refused) {
    expect(r.json.error).toMatchObject({ code: "rate_limited" });
    expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
  }
  expect(answers.length - refused.length).toBe(admitted);
}

async function slowKey(e: Env): Promise<string> {
  const res = await request(e, "POST", "/v1/admin/keys", env.DEV_ADMIN_KEY, {
    tenant: `order-${crypto.randomUUID().slice(0, 8)}`,
    agent: "dev-agent",
    channels: ["*"],
  });
  expect(res.status).toBe(201);
  return res.json.key;
}

describe("admission before level 2", () => {
  it("asks the verifier once for each admitted write, never for one refused for the rate", async () => {
    const world = counted();
    const key = await slowKey(world.env);
    const answers = [];
    for (let i = 0; i < 8; i++)
      answers.push(
        await request(world.env, "POST", "/v1/executions", key, {
          tool: "lab.write",
          input: { record: `r-${i}` },
          limits: { timeout_ms: 20_000 },
        }),
      );
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r.json.error).toMatchObject({ code: "rate_limited" });
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    expect(answers.filter((a) => a.status === 200).length).toBe(8 - refused.length);
    expect(world.asked()).toBe(8 - refused.length);
  });

  it("asks the verifier for no dry run refused for the rate", async () => {
    const world = counted();
    const key = await slowKey(world.env);
    const answers = [];
    for (let i = 0; i < 8; i++)
      answers.push(
        await request(world.env, "POST", "/v1/executions", key, {
          tool: "lab.write",
          mode: "dry_run",
          input: { record: "r" },
        }),
      );
    const served = answers.filter((a) => a.status === 200);
    expect(answers.length - served.length).toBeGreaterThanOrEqual(1);
    for (const a of answers)
      if (a.status !== 200) expect(a.json.error).toMatchObject({ code: "rate_limited", details: { reason: "rate" } });
    expect(world.asked()).toBe(served.length);
  });

  it("asks the verifier for no async or streamed write refused for the rate: those are charged at the edge too", async () => {
    for (const shape of [{ mode: "async" }, { mode: "sync", stream: true }]) {
      const world = counted();
      const key = await slowKey(world.env);
      const answers = [];
      for (let i = 0; i < 8; i++)
        answers.push(
          await request(world.env, "POST", "/v1/executions", key, {
            tool: "lab.write",
            ...shape,
            input: { record: `r-${i}` },
            limits: { timeout_ms: 20_000 },
          }),
        );
      const admitted = answers.filter((a) => a.status === 200 || a.status === 202).length;
      expectRateRefusals(answers, admitted);
      expect(world.asked()).toBe(admitted);
    }
  });

  it("charges every keyed request, a duplicate too: replays of one key are refused once the rate is spent", async () => {
    const world = counted();
    const key = await slowKey(world.env);
    // A roomy budget: the subject is the rate, not the time a loaded machine takes to answer.
    const body = {
      tool: "math.evaluate",
      input: { expression: "2 + 3" },
      idempotency_key: `k-${crypto.randomUUID()}`,
      limits: { timeout_ms: 20_000 },
    };
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await request(world.env, "POST", "/v1/executions", key, body));
    const answered = answers.filter((a) => a.status !== 429);
    expectRateRefusals(answers, answered.length);
    // One execution, answered to the first request and replayed to the others that had a token.
    expect(answered.map((a) => a.status)).toEqual(answered.map(() => 200));
    expect(new Set(answered.map((a) => a.json.execution_id)).size).toBe(1);
    expect(answered.every((a) => a.json.output?.value === 5)).toBe(true);
  });

  it("charges a call refused before admission: a flood of calls to an unknown tool is answered 429 beyond the rate", async () => {
    const world = counted();
    const key = await slowKey(world.env);
    const answers = [];
    for (let i = 0; i < 8; i++)
      answers.push(await request(world.env, "POST", "/v1/executions", key, { tool: "no.such-tool", input: {} }));
    const unknown = answers.filter((a) => a.status === 404);
    expect(unknown.length).toBeGreaterThanOrEqual(1);
    for (const a of unknown) expect(a.json.error).toMatchObject({ code: "tool_not_found" });
    expectRateRefusals(answers, unknown.length);
    expect(world.asked()).toBe(0);
  });
});
