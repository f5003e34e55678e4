/**
 * Who may read the audit log and the metrics (docs/contract.md#routes): `/metrics` counts every
 * tenant, so only operators read it; `/v1/audit` is the operators' and, for its own tenant, a
 * tenant admin's. A tenant's agent key gets 403 `forbidden` from both, and so does a tenant
 * admin's from `/metrics`.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintKey, send } from "./worker-http.ts";

describe("the audit log and the metrics, by role", () => {
  it("refuses a tenant's agent key on /v1/audit and /metrics with 403", async () => {
    const agent = await mintKey(env, `roles-${crypto.randomUUID()}`);
    for (const path of ["/v1/audit", "/metrics"]) {
      const res = await send(env, "GET", path, agent);
      expect([path, res.status, res.json.error?.code]).toEqual([path, 403, "forbidden"]);
    }
  });

  it("refuses a tenant admin's key on /metrics and gives it its own tenant's audit log", async () => {
    const tenant = `roles-${crypto.randomUUID()}`;
    const admin = await mintKey(env, tenant, { role: "tenant_admin" });
    const metrics = await send(env, "GET", "/metrics", admin);
    expect([metrics.status, metrics.json.error?.code]).toEqual([403, "forbidden"]);
    const audit = await send(env, "GET", "/v1/audit", admin);
    expect(audit.status).toBe(200);
    expect(audit.json.records).toEqual([]);
  });

  it("gives an operator both", async () => {
    const metrics = await send(env, "GET", "/metrics", env.DEV_ADMIN_KEY);
    expect(metrics.status).toBe(200);
    expect(metrics.json).toContain("# TYPE");
    expect((await send(env, "GET", "/v1/audit?limit=1", env.DEV_ADMIN_KEY)).status).toBe(200);
  });
});
