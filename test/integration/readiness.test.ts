/**
 * `/readyz` when the runtime is not ready (docs/contract.md#routes operations): a provider the
 * configuration names whose Worker is not bound (a deploy that forgot a service binding) makes
 * it answer 503 `not_ready`, with its status only; the operators' report names the provider.
 * The same isolate with every binding answers 200 `ready`, so the 503 is the binding's doing.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readiness } from "../../src/routes/health.ts";
import { send } from "./worker-http.ts";

/** The bound environment without the community provider's Worker. */
const unbound = Object.assign({}, env, { PROVIDER_COMMUNITY: undefined });

/** The isolate's cached check made stale (one dated ahead of the clock is), so the next probe checks `e` now. */
async function freshCheck(e: Env): Promise<void> {
  await readiness(e, Date.now() + 3_600_000);
}

describe("/readyz", () => {
  it("answers 503 not_ready, and nothing more, while a configured provider's Worker is not bound", async () => {
    await freshCheck(unbound);
    const probe = await send(unbound, "GET", "/readyz");
    expect(probe.status).toBe(503);
    expect(probe.json).toEqual({ status: "not_ready" });
    await freshCheck(unbound);
    const report = await send(unbound, "GET", "/v1/admin/readiness", env.DEV_ADMIN_KEY);
    expect(report.json).toMatchObject({ status: "not_ready" });
    expect(report.json.providers).toContainEqual({
      name: "community",
      reachable: false,
      error: "no service binding PROVIDER_COMMUNITY",
    });
    await freshCheck(env);
    const ready = await send(env, "GET", "/readyz");
    expect([ready.status, ready.json]).toEqual([200, { status: "ready" }]);
  });
});
