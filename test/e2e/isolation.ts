/**
 * One stack serves every e2e file, so what one file changes in the registry must not reach
 * the next (files pass alone and in any order). A vitest `setupFiles` module of the
 * e2e project: after each file it compares the registry with the state global-setup recorded
 * when the stack came up — every provider's trust and switch, every tool version's
 * deprecation — puts back whatever differs and fails that file, which should have restored
 * it itself (in `afterEach` or `finally`). What calls teach the registry (statistics,
 * breakers, liveness) is each file's by right; it is forgotten after every file, so a
 * breaker one file opened cannot refuse the next file's calls.
 */
import { afterAll, expect, inject } from "vitest";
import { asAdmin } from "./http.ts";
import { registryState } from "./registry-state.ts";

afterAll(async () => {
  const baseline = inject("registryBaseline");
  const now = await registryState((path) => asAdmin("GET", path));
  const leaks: string[] = [];
  for (const [name, want] of Object.entries(baseline.providers)) {
    const got = now.providers[name];
    if (!got || got.trust !== want.trust || got.disabled !== want.disabled) {
      leaks.push(`provider ${name}: ${JSON.stringify(got)} (was ${JSON.stringify(want)})`);
      await asAdmin("PATCH", `/v1/admin/providers/${name}`, { trust: want.trust, disabled: want.disabled });
    }
  }
  for (const [key, got] of Object.entries(now.deprecations)) {
    if (JSON.stringify(got) === JSON.stringify(baseline.deprecations[key] ?? null)) continue;
    leaks.push(`deprecation of ${key}: ${JSON.stringify(got)}`);
    const [tool, version] = key.split("@");
    await asAdmin("DELETE", `/v1/admin/tools/${tool}/versions/${version}/deprecation`);
  }
  for (const name of Object.keys(baseline.providers))
    expect((await asAdmin("DELETE", `/v1/admin/providers/${name}/health`)).status).toBe(200);
  expect(leaks, "this file left the shared registry changed (restored now)").toEqual([]);
});
