/**
 * Idempotency keys under load (docs/contract.md#idempotency): 200 concurrent identical requests
 * become one execution and one dispatch. Opt-in (`npm run test:load`); the e2e suite keeps the
 * same promise at 20 (test/e2e/idempotency-and-retry.test.ts).
 */
import { describe, expect, it } from "vitest";
import { asAdmin, baseUrl, bearer, execute } from "../e2e/http.ts";
import { tenant } from "../e2e/tenants.ts";

describe("idempotency keys under load", () => {
  it("turns 200 concurrent identical requests into one execution and one dispatch", async () => {
    const counter = `count-${crypto.randomUUID()}`;
    const body = {
      tool: "lab.flaky",
      input: { key: counter, delay_ms: 300 },
      idempotency_key: `key-${crypto.randomUUID()}`,
      limits: { timeout_ms: 30_000 },
    };
    // Every keyed request takes a token of its tenant's rate, a duplicate too: a tenant with room for 200.
    const minted = await asAdmin("POST", "/v1/admin/keys", {
      tenant: tenant("roomy"),
      agent: "dev-agent",
      channels: ["*"],
    });
    expect(minted.status).toBe(201);
    let sent = 0;
    let sentBeforeFirstAnswer = -1;
    const answers = await Promise.all(
      Array.from({ length: 200 }, async () => {
        sent++;
        const res = await fetch(`${baseUrl}/v1/executions`, {
          method: "POST",
          headers: { "content-type": "application/json", ...bearer(minted.body.key) },
          body: JSON.stringify(body),
        });
        if (sentBeforeFirstAnswer < 0) sentBeforeFirstAnswer = sent;
        return {
          status: res.status,
          replayed: res.headers.get("idempotent-replayed"),
          body: (await res.json()) as any,
        };
      }),
    );
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(new Set(answers.map((a) => a.body.execution_id)).size).toBe(1);
    expect(answers.every((a) => a.body.output.calls === 1)).toBe(true);
    expect(answers.filter((a) => a.replayed === "true").length).toBe(199);
    // The sentinel: all 200 were on their way before any answer came back (the provider takes
    // 300 ms), so the duplicates met a running execution, not a finished one.
    expect(sentBeforeFirstAnswer).toBe(200);
    // Counted at the provider: the next call for this counter is its second, not its 201st.
    const next = await execute({ tool: "lab.flaky", input: { key: counter } });
    expect(next.body.output).toEqual({ calls: 2 });
  });
});
