/**
 * One stack serves every e2e file, so what one file changes for everyone must not reach the
 * next (files pass alone and in any order). A vitest `setupFiles` module of the e2e project:
 * after each file it compares what the admin API shows with the state global-setup recorded
 * when the stack came up (registry-state.ts: every provider's trust, switch and
 * max_concurrency, every tool version's deprecation, every upstream registration, every tool
 * bundle, the armed audit drills), puts back whatever it can and fails that file, naming each leftover: the
 * file should have restored it itself (in `afterEach` or `finally`). What calls teach the
 * registry (statistics, breakers, liveness) is each file's by right; it is forgotten after
 * every file, so a breaker one file opened cannot refuse the next file's calls.
 */
import { afterAll, beforeAll, expect } from "vitest";
import { asAdmin } from "./http.ts";
import { armedDrills, registryState, type Drills } from "./registry-state.ts";
import { registryBaseline, releaseStack } from "./stack.ts";

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The drills armed when this file began. No request disarms a drill (the next audit batches
 * or sends spend it), so one a file left armed is that file's fault, not the next file's: each
 * file answers only for the drills it armed and left.
 */
let drillsAtStart: Drills;
beforeAll(async () => {
  drillsAtStart = await armedDrills((method, path) => asAdmin(method, path));
});

// Last of the file's hooks (setup files' run after its own): the check, then the stack goes back.
afterAll(async () => {
  try {
    await checkLeaks();
  } finally {
    releaseStack();
  }
});

async function checkLeaks(): Promise<void> {
  const baseline = registryBaseline;
  const now = await registryState((method, path) => asAdmin(method, path));
  const leaks: string[] = [];
  for (const [name, got] of Object.entries(now.upstreams)) {
    const want = baseline.upstreams[name];
    if (want === undefined) {
      // A registration of the file's own (an upstream whose tools outrank or shadow the
      // providers' for every later file): removed.
      leaks.push(`upstream ${name} registered and left: ${JSON.stringify(got)}`);
      await asAdmin("DELETE", `/v1/admin/upstreams/${name}`);
    } else if (!same(got, want)) {
      leaks.push(`upstream ${name}: ${JSON.stringify(got)} (was ${JSON.stringify(want)})`);
    }
  }
  for (const name of Object.keys(baseline.upstreams))
    if (!(name in now.upstreams))
      leaks.push(`upstream ${name} removed (was ${JSON.stringify(baseline.upstreams[name])})`);
  for (const [name, want] of Object.entries(baseline.providers)) {
    const got = now.providers[name];
    if (!got) {
      if (name in baseline.upstreams && !(name in now.upstreams)) continue; // named above
      leaks.push(`provider ${name}: gone (was ${JSON.stringify(want)})`);
    } else if (!same(got, want)) {
      leaks.push(`provider ${name}: ${JSON.stringify(got)} (was ${JSON.stringify(want)})`);
      await asAdmin("PATCH", `/v1/admin/providers/${name}`, want);
    }
  }
  for (const name of Object.keys(now.providers))
    if (!(name in baseline.providers) && !(name in now.upstreams)) leaks.push(`provider ${name}: new`);
  for (const [key, got] of Object.entries(now.deprecations)) {
    if (same(got, baseline.deprecations[key] ?? null)) continue;
    leaks.push(`deprecation of ${key}: ${JSON.stringify(got)}`);
    const [tool, version] = key.split("@");
    await asAdmin("DELETE", `/v1/admin/tools/${tool}/versions/${version}/deprecation`);
  }
  // A bundle is served at /mcp/{name} to every later file.
  for (const [name, got] of Object.entries(now.bundles)) {
    const want = baseline.bundles[name];
    if (same(got, want)) continue;
    leaks.push(`bundle ${name}: ${JSON.stringify(got)} (was ${JSON.stringify(want ?? null)})`);
    if (want === undefined) await asAdmin("DELETE", `/v1/admin/bundles/${name}`);
    else await asAdmin("PUT", `/v1/admin/bundles/${name}`, want);
  }
  for (const [name, want] of Object.entries(baseline.bundles))
    if (!(name in now.bundles)) {
      leaks.push(`bundle ${name} deleted (was ${JSON.stringify(want)})`);
      await asAdmin("PUT", `/v1/admin/bundles/${name}`, want);
    }
  // The next files' audit records would be failed by it.
  const start = drillsAtStart;
  if (
    (now.drills.fail_next_batch && !start.fail_next_batch) ||
    now.drills.fail_next_send > start.fail_next_send ||
    now.drills.fail_batches > start.fail_batches
  )
    leaks.push(`audit drills left armed: ${JSON.stringify(now.drills)} (at the start: ${JSON.stringify(start)})`);
  expect(leaks, "this file left state every later file shares changed (restored where it could be)").toEqual([]);
}
