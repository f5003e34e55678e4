/**
 * Registry and routing against the real stack (AIOS §5.2, §5.2.1, §6.4). lab.route is
 * offered by lab-broken (system; fails before any handler runs), lab-twin (verified) and
 * lab (community); it answers with the provider that served it. The tests run in order and
 * build on each other's registry state, as an operator's day would.
 */
import { describe, expect, it } from "vitest";
import { asAdmin, call, execute } from "./http.ts";

const route = (body: Record<string, unknown> = {}) => execute({ tool: "lab.route", input: {}, ...body });

async function offering(provider: string) {
  const view = await call("GET", "/v1/tools/lab.route");
  return view.body.versions[0].providers.find((p: { provider: string }) => p.provider === provider);
}

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, withinMs = 10_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.sequential("registry and routing", () => {
  it("explains in a dry run which provider would serve and why, without executing", async () => {
    const res = await route({ mode: "dry_run" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ mode: "dry_run", tool: "lab.route", version: "1.0.0", provider: "lab-broken", schema: { valid: true }, capability: { allowed: true } });
    expect(res.body.execution_id).toBeUndefined();
    expect(res.body.ranking.map((r: { provider: string }) => r.provider)).toEqual(["lab-broken", "lab-twin", "lab"]);
    expect(res.body.ranking[0].reason).toContain("trust system > verified");
    expect(res.body.ranking[1].reason).toContain("trust verified > community");

    const invalid = await route({ mode: "dry_run", input: { crash: "yes" } });
    expect(invalid.body).toMatchObject({ provider: null, schema: { valid: false, violations: [{ path: "/crash" }] } });
  });

  it("marks a provider whose Worker fails before handling dead on its first call, and retries elsewhere", async () => {
    // lab.route is idempotent, so the retry engine moves the call to the next-ranked provider.
    const first = await route();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "succeeded", output: { served_by: "lab-twin" } });
    expect(first.body.attempts.map((a: { provider: string; outcome: string }) => [a.provider, a.outcome])).toEqual([
      ["lab-broken", "provider_crashed"],
      ["lab-twin", "succeeded"],
    ]);
    expect(await offering("lab-broken")).toMatchObject({ alive: false });

    const second = await route();
    expect(second.body.attempts).toEqual([expect.objectContaining({ provider: "lab-twin", outcome: "succeeded" })]);
  });

  it("honours an explicit provider, and does not fall back when it cannot serve", async () => {
    expect((await route({ provider: "lab" })).body.output).toEqual({ served_by: "lab" });
    const dead = await route({ provider: "lab-broken" });
    expect(dead.status).toBe(503);
    expect(dead.body.error).toMatchObject({ code: "no_healthy_provider", retryable: true });
  });

  it("opens a provider's breaker after N failures in the window and routes to the next one", async () => {
    // Named, so that every attempt (the engine retries the idempotent tool) goes to lab-twin.
    const crash = await route({ provider: "lab-twin", input: { crash: true } });
    expect(crash.body).toMatchObject({ error: { code: "provider_crashed" }, execution: { worker: "lab-twin" } });
    expect(crash.body.attempts).toHaveLength(3); // lab.route's breaker: 3 failures in 30 s
    const after = await route();
    expect(after.body.output).toEqual({ served_by: "lab" });
    expect(await offering("lab-twin")).toMatchObject({ breaker: "open", error_rate: expect.any(Number) });

    const named = await route({ provider: "lab-twin" });
    expect(named.status).toBe(503);
    expect(named.body.error.code).toBe("no_healthy_provider");
    expect(Number(named.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(named.body.error.details.retry_after_ms).toBeGreaterThan(0);
  });

  it("lets one trial call through after the cooldown, and closes the breaker when it succeeds", async () => {
    const halfOpen = await eventually(() => offering("lab-twin"), (o) => o.breaker === "half_open");
    expect(halfOpen.breaker).toBe("half_open");
    const trial = await route();
    expect(trial.body.output).toEqual({ served_by: "lab-twin" });
    expect((await offering("lab-twin")).breaker).toBe("closed");
  });

  it("shows each provider's trust, p50, error rate and breaker state", async () => {
    const view = await call("GET", "/v1/tools/lab.route");
    const providers = view.body.versions[0].providers;
    for (const p of providers) {
      expect(p).toEqual(expect.objectContaining({ trust: expect.any(String), breaker: expect.stringMatching(/closed|open|half_open/) }));
      expect(p).toHaveProperty("p50_ms");
      expect(p).toHaveProperty("error_rate");
    }
    expect(providers.find((p: { provider: string }) => p.provider === "lab").p50_ms).toEqual(expect.any(Number));
  });

  it("fails fast with no_healthy_provider when an operator disables every live provider", async () => {
    for (const name of ["lab", "lab-twin"]) {
      expect((await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: true })).body).toMatchObject({ name, disabled: true });
    }
    const res = await route();
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: "no_healthy_provider", retryable: true });
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    for (const name of ["lab", "lab-twin"]) await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: false });
    expect((await route()).status).toBe(200);
  });

  it("follows an operator's change of trust", async () => {
    await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "system" });
    expect((await route()).body.output).toEqual({ served_by: "lab" });
    await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "community" });
    expect((await route()).body.output).toEqual({ served_by: "lab-twin" });
  });

  it("serves a deprecated version with Deprecation and Sunset headers, and refuses it after the sunset", async () => {
    const sunset = new Date(Date.now() + 86_400_000).toISOString();
    const put = await asAdmin("PUT", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation", { sunset, replacement: "lab.echo" });
    expect(put.status).toBe(200);
    const before = await route();
    expect(before.status).toBe(200);
    expect(before.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(Date.parse(before.headers.get("sunset")!)).toBe(Math.floor(Date.parse(sunset) / 1000) * 1000);

    await asAdmin("PUT", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation", { sunset: new Date(Date.now() - 1000).toISOString(), replacement: "lab.echo" });
    const after = await route();
    expect(after.status).toBe(410);
    expect(after.body.error).toMatchObject({ code: "tool_deprecated", details: { replacement: "lab.echo" } });

    await asAdmin("DELETE", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation");
    expect((await route()).status).toBe(200);
  });

  it("refuses a malformed admin change", async () => {
    expect((await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "gold" })).status).toBe(400);
    expect((await asAdmin("PATCH", "/v1/admin/providers/nope", { disabled: true })).status).toBe(404);
    expect((await asAdmin("PUT", "/v1/admin/tools/lab.route/versions/9.9.9/deprecation", { sunset: new Date().toISOString() })).status).toBe(404);
  });
});
