/**
 * The per-tool rate (docs/contract.md#limits): a tenant's calls to one tool share a bucket of their
 * own, below the tenant's. The family here has room for a thousand calls a second in all but a
 * burst of two to each tool, refilled so slowly (one token in about 17 minutes) that the burst
 * is all a test can ever spend: the third call to a tool is refused, however slowly it comes,
 * while a call to another tool of the same tenant is still served.
 */
import { describe, expect, it } from "vitest";
import { mintKey, send, withTenantLimits } from "./worker-http.ts";

const e = withTenantLimits({
  "toolrate-*": { requests_per_second: 1000, burst: 2000, tool_requests_per_second: 0.001, tool_burst: 2 },
});
const math = (expression: string) => ({
  tool: "math.evaluate",
  input: { expression },
  limits: { timeout_ms: 20_000 },
});

describe("the per-tool rate", () => {
  it("refuses a tool's call past its own burst with 429 tool_rate, and still serves another tool", async () => {
    const key = await mintKey(e, `toolrate-${crypto.randomUUID()}`);
    for (const expression of ["1 + 1", "2 + 2"])
      expect((await send(e, "POST", "/v1/executions", key, math(expression))).status).toBe(200);
    const refused = await send(e, "POST", "/v1/executions", key, math("3 + 3"));
    expect(refused.status).toBe(429);
    expect(refused.json.error).toMatchObject({
      code: "rate_limited",
      retryable: true,
      details: { reason: "tool_rate", limit: 0.001, tool: "math.evaluate" },
    });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.json.execution_id).toBeUndefined();
    // The tenant's own bucket is far from empty: another tool is served.
    const other = await send(e, "POST", "/v1/executions", key, {
      tool: "text.stats",
      input: { text: "still served" },
      limits: { timeout_ms: 20_000 },
    });
    expect(other.status).toBe(200);
    expect(other.json.status).toBe("succeeded");
  });
});
