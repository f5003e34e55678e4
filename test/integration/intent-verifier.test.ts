/**
 * docs/contract.md#capabilities level 2 when the verifier itself misbehaves: "best-effort", so a verifier that
 * throws, or answers later than VERIFY_TIMEOUT_MS, is skipped and levels 1 and 3 decide; the
 * call is neither blocked nor held up longer. The Worker runs as deployed, except that its
 * INTENT_VERIFIER binding points at one of two test Workers (vitest.config.ts): one whose
 * verify() throws, one whose verify() answers after 10 s. The real verifier's refusals of
 * write, delete and send tools are tested against the real stack (test/e2e/policy.test.ts).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index.ts";
import { VERIFY_TIMEOUT_MS } from "../../src/pipeline/intent.ts";

const testEnv = env as Env & {
  TEST_VERIFIER_FAILING: Env["INTENT_VERIFIER"];
  TEST_VERIFIER_SLOW: Env["INTENT_VERIFIER"];
};

async function request(
  e: Env,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const ctx = createExecutionContext();
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
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return {
    status: res.status,
    json: (res.headers.get("content-type") ?? "").includes("json") ? JSON.parse(text) : undefined,
    text,
  };
}

/** A key for an agent whose profile reads only (verifiers/intent/profiles.json): the real verifier refuses it lab.write. */
async function researchKey(): Promise<string> {
  const res = await request(env, "POST", "/v1/admin/keys", env.DEV_ADMIN_KEY, {
    tenant: `verifier-${crypto.randomUUID().slice(0, 8)}`,
    agent: "research-assistant",
    channels: ["*"],
  });
  expect(res.status).toBe(201);
  return res.json.key;
}

const write = { tool: "lab.write", input: { record: "r-1" }, limits: { timeout_ms: 20_000 } };

describe("a verifier that fails or is slow", () => {
  it("is refused by the real verifier first: research-assistant may not write", async () => {
    const res = await request(env, "POST", "/v1/executions", await researchKey(), write);
    expect(res.status).toBe(403);
    expect(res.json.error.details).toMatchObject({ level: 2, profile: "research-assistant" });
  });

  it("is skipped when verify() throws: the write runs, and the decision says why level 2 did not decide", async () => {
    const failing = { ...env, INTENT_VERIFIER: testEnv.TEST_VERIFIER_FAILING } as Env;
    const res = await request(failing, "POST", "/v1/executions", await researchKey(), write);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "succeeded", output: { wrote: "r-1" } });
    expect(res.json.capability.level2).toMatchObject({
      verdict: "skipped",
      mode: "sync",
      reason: expect.stringContaining("the verifier failed"),
    });
  });

  it(`is skipped when verify() has not answered within ${VERIFY_TIMEOUT_MS} ms: the write runs`, async () => {
    const slow = { ...env, INTENT_VERIFIER: testEnv.TEST_VERIFIER_SLOW } as Env;
    const res = await request(slow, "POST", "/v1/executions", await researchKey(), write);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "succeeded", output: { wrote: "r-1" } });
    expect(res.json.capability.level2).toMatchObject({
      verdict: "skipped",
      mode: "sync",
      reason: expect.stringContaining(`did not answer within ${VERIFY_TIMEOUT_MS} ms`),
    });
  });
});

describe("VERIFIER_FAILURE_POLICY: per effect, a failed verifier skips level 2 or refuses the call", () => {
  /** The failing verifier, deletes refused when it fails, writes skipped (each test its own env: the config is per env). */
  const policyEnv = () =>
    Object.assign({}, env, {
      INTENT_VERIFIER: testEnv.TEST_VERIFIER_FAILING,
      VERIFIER_FAILURE_POLICY: JSON.stringify({ delete: "refuse", write: "skip" }),
    });
  const del = { tool: "lab.delete", input: { record: "r-1" }, limits: { timeout_ms: 20_000 } };

  it("refuses a delete when the verifier fails and the policy says refuse, and says why", async () => {
    const res = await request(policyEnv(), "POST", "/v1/executions", await researchKey(), del);
    expect(res.status).toBe(503);
    expect(res.json.error).toMatchObject({
      code: "overloaded",
      retryable: true,
      details: { level: 2, reason: "verifier_unavailable", retry_after_ms: expect.any(Number) },
    });
    expect(res.json.execution_id).toBeUndefined();
  });

  it("still runs a write, whose policy is skip, with the skip recorded", async () => {
    const res = await request(policyEnv(), "POST", "/v1/executions", await researchKey(), write);
    expect(res.status).toBe(200);
    expect(res.json.capability.level2).toMatchObject({
      verdict: "skipped",
      reason: expect.stringContaining("the verifier failed"),
    });
  });

  it("shows the refusal in a dry run of the delete", async () => {
    const res = await request(policyEnv(), "POST", "/v1/executions", await researchKey(), { ...del, mode: "dry_run" });
    expect(res.status).toBe(200);
    expect(res.json.capability).toMatchObject({ allowed: false, denial: { level: 2 } });
  });

  it("counts skips and refusals in /metrics by effect and reason", async () => {
    const e = policyEnv();
    const scrape = async () => (await request(e, "GET", "/metrics", env.DEV_ADMIN_KEY)).text;
    const count = (text: string, name: string, effect: string) =>
      Number(new RegExp(`^${name}\\{effect="${effect}",reason="error"\\} (\\d+)$`, "m").exec(text)?.[1] ?? 0);
    // The counters are global and follow the audit queue: other tests of this file refuse and
    // skip too, and their records may still be on their way. Read "before" once they have
    // settled (the same figures twice, 1.5 s apart: the queue's batches wait at most 1 s), so
    // the difference is this test's own.
    let before = await scrape();
    for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 1_500));
      const again = await scrape();
      const same = ["tool_runtime_intent_refused_total", "tool_runtime_intent_skipped_total"].every((m) =>
        ["delete", "write"].every((fx) => count(again, m, fx) === count(before, m, fx)),
      );
      before = again;
      if (same) break;
    }
    const key = await researchKey();
    expect((await request(e, "POST", "/v1/executions", key, del)).status).toBe(503);
    expect((await request(e, "POST", "/v1/executions", key, write)).status).toBe(200);
    let after = before;
    for (let i = 0; i < 60; i++) {
      after = await scrape();
      if (
        count(after, "tool_runtime_intent_refused_total", "delete") >
          count(before, "tool_runtime_intent_refused_total", "delete") &&
        count(after, "tool_runtime_intent_skipped_total", "write") >
          count(before, "tool_runtime_intent_skipped_total", "write")
      )
        break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(count(after, "tool_runtime_intent_refused_total", "delete")).toBe(
      count(before, "tool_runtime_intent_refused_total", "delete") + 1,
    );
    expect(count(after, "tool_runtime_intent_skipped_total", "write")).toBe(
      count(before, "tool_runtime_intent_skipped_total", "write") + 1,
    );
  }, 60_000);
});
