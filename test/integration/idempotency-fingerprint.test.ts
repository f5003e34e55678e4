/**
 * What makes a keyed call "the same request" (docs/contract.md#idempotency): tool, version, provider,
 * input, mode and limits. A call under a used key that differs in any of them is refused with
 * 409 `idempotency_conflict` naming the first execution; the same request again is its replay.
 * (The input is tested end to end: test/e2e/idempotency-and-retry.test.ts.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { send } from "./worker-http.ts";

const key = env.DEV_API_KEY;
const asked = {
  tool: "text.stats",
  input: { text: "one two three" },
  mode: "sync",
  limits: { timeout_ms: 20_000 },
};

describe("the idempotency fingerprint", () => {
  it.each([
    ["mode", { mode: "async" }],
    ["limits", { limits: { timeout_ms: 19_000 } }],
    ["provider", { provider: "std" }],
    ["version", { version: "1.0.0" }],
    ["tool", { tool: "lab.echo" }],
  ])("refuses a call under a used key that differs in its %s", async (_field, change) => {
    const idempotency_key = crypto.randomUUID();
    const first = await send(env, "POST", "/v1/executions", key, { ...asked, idempotency_key });
    expect(first.status).toBe(200);
    const changed = await send(env, "POST", "/v1/executions", key, { ...asked, ...change, idempotency_key });
    expect(changed.status).toBe(409);
    expect(changed.json.error).toMatchObject({
      code: "idempotency_conflict",
      details: { execution_id: first.json.execution_id },
    });
    // The key is still bound to the first request, which replays.
    const again = await send(env, "POST", "/v1/executions", key, { ...asked, idempotency_key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.json.execution_id).toBe(first.json.execution_id);
  });
});
