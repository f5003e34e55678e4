/**
 * AIOS §5.3 level 2 when the verifier itself misbehaves: "best-effort", so a verifier that
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

const testEnv = env as Env & { TEST_VERIFIER_FAILING: Env["INTENT_VERIFIER"]; TEST_VERIFIER_SLOW: Env["INTENT_VERIFIER"] };

async function request(e: Env, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> {
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, ...(body ? { body: JSON.stringify(body) } : {}) };
  const res = await worker.fetch(new Request(`http://localhost${path}`, init) as Request<unknown, IncomingRequestCfProperties>, e, ctx);
  const json = await res.json();
  await waitOnExecutionContext(ctx);
  return { status: res.status, json };
}

/** A key for an agent whose profile reads only (verifiers/intent/profiles.json): the real verifier refuses it lab.write. */
async function researchKey(): Promise<string> {
  const res = await request(env, "POST", "/v1/admin/keys", env.DEV_ADMIN_KEY, { tenant: `verifier-${crypto.randomUUID().slice(0, 8)}`, agent: "research-assistant", channels: ["*"] });
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
    expect(res.json.capability.level2).toMatchObject({ verdict: "skipped", mode: "sync", reason: expect.stringContaining("the verifier failed") });
  });

  it(`is skipped when verify() has not answered within ${VERIFY_TIMEOUT_MS} ms: the write runs`, async () => {
    const slow = { ...env, INTENT_VERIFIER: testEnv.TEST_VERIFIER_SLOW } as Env;
    const res = await request(slow, "POST", "/v1/executions", await researchKey(), write);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "succeeded", output: { wrote: "r-1" } });
    expect(res.json.capability.level2).toMatchObject({ verdict: "skipped", mode: "sync", reason: expect.stringContaining(`did not answer within ${VERIFY_TIMEOUT_MS} ms`) });
  });
});
