/**
 * Overload is shed, not timed out (docs/contract.md#budgets), under real load: 1,000 calls at
 * concurrency 200 from one tenant. Opt-in (`npm run test:load`): it loads a 2-core machine for
 * seconds, and the audit it leaves behind keeps the stack busy for the file after it.
 */
import { describe, expect, it } from "vitest";
import { asAdmin, baseUrl, bearer } from "../e2e/http.ts";

describe("overload is shed, not timed out", () => {
  it("answers 1,000 calls at concurrency 200 from one tenant with a success or a retryable refusal; a timeout only where the provider ran", async () => {
    const minted = await asAdmin("POST", "/v1/admin/keys", {
      tenant: `load-${crypto.randomUUID()}`,
      agent: "dev-agent",
      channels: ["*"],
    });
    expect(minted.status).toBe(201);
    const key = minted.body.key as string;
    const statuses = new Map<number, number>();
    const problems: string[] = [];
    let next = 0;
    let inFlight = 0;
    let mostInFlight = 0;
    const worker = async () => {
      while (next < 1_000) {
        next++;
        inFlight++;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const res = await fetch(`${baseUrl}/v1/executions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...bearer(key) },
          // The tool's own budget (100 ms): under this load some calls use it up before dispatch.
          body: JSON.stringify({ tool: "math.evaluate", input: { expression: "6 * 7" } }),
        });
        const body = (await res.json()) as any;
        inFlight--;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 429 || res.status === 503) {
          if (!body.error?.retryable || !/^\d+$/.test(res.headers.get("retry-after") ?? ""))
            problems.push(
              `${res.status} ${body.error?.code} (retryable ${body.error?.retryable}, Retry-After ${res.headers.get("retry-after")}) without a retryable error and Retry-After`,
            );
        } else if (res.status === 504) {
          // `timeout` means the provider ran past its budget: it was called, and ran.
          if (
            body.error?.code !== "timeout" ||
            !(body.attempts?.[0]?.duration_ms >= 0) ||
            body.execution?.started_ms === null
          )
            problems.push(`504 without a provider run: ${JSON.stringify(body).slice(0, 200)}`);
        } else if (res.status !== 200) {
          problems.push(`${res.status}: ${JSON.stringify(body).slice(0, 200)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: 200 }, worker));
    console.log(`load: ${JSON.stringify(Object.fromEntries(statuses))}, at most ${mostInFlight} in flight`);
    expect(problems).toEqual([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).toBe(1_000);
    expect(statuses.get(200) ?? 0).toBeGreaterThan(0);
    // The sentinel: the test measured overload — 200 calls were in flight at once, and the
    // runtime refused some of them rather than serving every one.
    expect(mostInFlight).toBe(200);
    expect((statuses.get(429) ?? 0) + (statuses.get(503) ?? 0)).toBeGreaterThan(0);
  }, 240_000);
});
