/**
 * Registry and routing against the real stack (docs/contract.md#resolution, docs/contract.md#ranking, docs/contract.md#circuit-breakers). lab.route is
 * offered by lab-broken (system; its Worker throws before any handler runs), lab-twin
 * (verified) and lab (community); it answers with the provider that served it. Each test
 * starts from the same registry state and puts back what it changed (health, trust,
 * switches, deprecations), so the tests pass alone and in any order.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { asAdmin, call, execute } from "./http.ts";

const PROVIDERS = ["lab-broken", "lab-twin", "lab"];
const route = (body: Record<string, unknown> = {}) =>
  execute({ tool: "lab.route", input: {}, limits: { timeout_ms: 20_000 }, ...body });

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

/** The registry as the tests start from: lab.route's providers healthy, at their configured trust, switched on, undeprecated. */
async function restore(): Promise<void> {
  for (const name of PROVIDERS) {
    expect((await asAdmin("DELETE", `/v1/admin/providers/${name}/health`)).status).toBe(200);
    await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: false });
  }
  await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "community" });
  await asAdmin("DELETE", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation");
}

/** Calls lab.route until lab-broken's breaker opens (lab.route's own breaker: 3 failures in 30 s). */
async function openBrokenBreaker(): Promise<void> {
  for (let i = 0; i < 10 && (await offering("lab-broken")).breaker !== "open"; i++) await route();
}

beforeEach(restore);
afterEach(restore);

describe("registry and routing", () => {
  it("explains in a dry run which provider would serve and why, without executing", async () => {
    const res = await route({ mode: "dry_run" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      mode: "dry_run",
      tool: "lab.route",
      version: "1.0.0",
      provider: "lab-broken",
      schema: { valid: true },
      capability: { allowed: true },
    });
    expect(res.body.execution_id).toBeUndefined();
    expect(res.body.ranking.map((r: { provider: string }) => r.provider)).toEqual(["lab-broken", "lab-twin", "lab"]);
    expect(res.body.ranking[0].reason).toContain("trust system > verified");
    expect(res.body.ranking[1].reason).toContain("trust verified > community");

    const invalid = await route({ mode: "dry_run", input: { crash: "yes" } });
    expect(invalid.body).toMatchObject({ provider: null, schema: { valid: false, violations: [{ path: "/crash" }] } });
  });

  it("retries an idempotent call on the next-ranked provider when the first fails, without calling the first dead", async () => {
    const first = await route();
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: "succeeded", output: { served_by: "lab-twin" } });
    expect(first.body.attempts.map((a: { provider: string; outcome: string }) => [a.provider, a.outcome])).toEqual([
      ["lab-broken", "provider_crashed"],
      ["lab-twin", "succeeded"],
    ]);
    // One failed call is a failed call: its Worker answers its manifest, so it is alive.
    expect(await offering("lab-broken")).toMatchObject({ alive: true, breaker: "closed" });
  });

  it("opens the breaker of a provider that keeps failing, then routes past it and names it in a refusal", async () => {
    await openBrokenBreaker();
    expect(await offering("lab-broken")).toMatchObject({
      breaker: "open",
      alive: true,
      error_rate: expect.any(Number),
    });
    // Best first: the providers a call would try, then the one it passes over now.
    const listed = (await call("GET", "/v1/tools/lab.route")).body.versions[0].providers.map(
      (p: { provider: string }) => p.provider,
    );
    expect(listed).toEqual(["lab-twin", "lab", "lab-broken"]);
    const past = await route();
    expect(past.body.attempts).toEqual([expect.objectContaining({ provider: "lab-twin", outcome: "succeeded" })]);

    const named = await route({ provider: "lab-broken" });
    expect(named.status).toBe(503);
    expect(named.body.error).toMatchObject({ code: "no_healthy_provider", retryable: true });
    expect(named.body.error.details.providers).toEqual([
      expect.objectContaining({ provider: "lab-broken", reason: expect.stringContaining("circuit open") }),
    ]);
    expect(Number(named.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("honours an explicit provider, and does not fall back to another when it fails", async () => {
    expect((await route({ provider: "lab" })).body.output).toEqual({ served_by: "lab" });
    const failed = await route({ provider: "lab-broken" });
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe("provider_crashed");
    expect(failed.body.attempts.every((a: { provider: string }) => a.provider === "lab-broken")).toBe(true);
  });

  it("lets one trial call through after the cooldown, and closes the breaker when it succeeds", async () => {
    // Named, so that every attempt (the engine retries the idempotent tool) goes to lab-twin.
    const crash = await route({ provider: "lab-twin", input: { crash: true } });
    expect(crash.body).toMatchObject({ error: { code: "provider_crashed" }, execution: { worker: "lab-twin" } });
    expect(await offering("lab-twin")).toMatchObject({ breaker: "open" });
    // lab-broken must not take the trial's place in the ranking.
    await asAdmin("PATCH", "/v1/admin/providers/lab-broken", { disabled: true });
    const halfOpen = await eventually(
      () => offering("lab-twin"),
      (o) => o.breaker === "half_open",
    );
    expect(halfOpen.breaker).toBe("half_open");
    const trial = await route();
    expect(trial.body.output).toEqual({ served_by: "lab-twin" });
    expect((await offering("lab-twin")).breaker).toBe("closed");
  });

  it("shows each provider's trust, p50, error rate and breaker state", async () => {
    await route({ provider: "lab" });
    const view = await call("GET", "/v1/tools/lab.route");
    const providers = view.body.versions[0].providers;
    for (const p of providers) {
      expect(p).toEqual(
        expect.objectContaining({ trust: expect.any(String), breaker: expect.stringMatching(/closed|open|half_open/) }),
      );
      expect(p).toHaveProperty("p50_ms");
      expect(p).toHaveProperty("error_rate");
    }
    const lab = await eventually(
      () => offering("lab"),
      (o) => typeof o.p50_ms === "number",
    );
    expect(lab.p50_ms).toEqual(expect.any(Number));
  });

  it("fails fast with no_healthy_provider when an operator disables every provider", async () => {
    for (const name of PROVIDERS) {
      expect((await asAdmin("PATCH", `/v1/admin/providers/${name}`, { disabled: true })).body).toMatchObject({
        name,
        disabled: true,
      });
    }
    const res = await route();
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: "no_healthy_provider", retryable: true });
    expect(res.body.error.details.providers.map((p: { provider: string }) => p.provider).sort()).toEqual(
      [...PROVIDERS].sort(),
    );
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("follows an operator's change of trust", async () => {
    await asAdmin("PATCH", "/v1/admin/providers/lab-broken", { disabled: true });
    await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "system" });
    expect((await route()).body.output).toEqual({ served_by: "lab" });
    await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "community" });
    expect((await route()).body.output).toEqual({ served_by: "lab-twin" });
  });

  it("serves a deprecated version with Deprecation, Sunset and a successor Link, and refuses it after the sunset", async () => {
    const sunset = new Date(Date.now() + 86_400_000).toISOString();
    const put = await asAdmin("PUT", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation", {
      sunset,
      replacement: "lab.echo@1.0.0",
    });
    expect(put.status).toBe(200);
    const before = await route();
    expect(before.status).toBe(200);
    expect(before.headers.get("deprecation")).toMatch(/^@\d+$/);
    expect(Date.parse(before.headers.get("sunset")!)).toBe(Math.floor(Date.parse(sunset) / 1000) * 1000);
    // RFC 8288: the replacement, as the tool the caller can read about (its name, any version).
    expect(before.headers.get("link")).toBe('</v1/tools/lab.echo>; rel="successor-version"');
    // An undeprecated call carries none of the three.
    await asAdmin("DELETE", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation");
    const plain = await route();
    expect([plain.headers.get("deprecation"), plain.headers.get("sunset"), plain.headers.get("link")]).toEqual([
      null,
      null,
      null,
    ]);

    await asAdmin("PUT", "/v1/admin/tools/lab.route/versions/1.0.0/deprecation", {
      sunset: new Date(Date.now() - 1000).toISOString(),
      replacement: "lab.echo",
    });
    const after = await route();
    expect(after.status).toBe(410);
    expect(after.body.error).toMatchObject({ code: "tool_deprecated", details: { replacement: "lab.echo" } });
  });

  it("refuses a malformed admin change", async () => {
    expect((await asAdmin("PATCH", "/v1/admin/providers/lab", { trust: "gold" })).status).toBe(400);
    expect((await asAdmin("PATCH", "/v1/admin/providers/nope", { disabled: true })).status).toBe(404);
    expect((await asAdmin("DELETE", "/v1/admin/providers/nope/health")).status).toBe(404);
    expect(
      (
        await asAdmin("PUT", "/v1/admin/tools/lab.route/versions/9.9.9/deprecation", {
          sunset: new Date().toISOString(),
        })
      ).status,
    ).toBe(404);
  });
});
