/**
 * What one e2e file can change for every later file, as the admin API shows it: every
 * provider's trust, switch and max_concurrency, every tool version's deprecation, every
 * upstream MCP server's registration, and the audit drills still armed. global-setup records
 * it when the stack comes up; isolation.ts compares every file's leftovers with it.
 *
 * The approval rules are not here: they are configuration (APPROVALS, read when the Worker
 * loads), and no request can change them.
 */
export interface RegistryState {
  /** provider (Worker or upstream) → its trust, whether it is switched off, its limit of calls at once. */
  providers: Record<string, { trust: string; disabled: boolean; max_concurrency: number | null }>;
  /** `tool@version` → its deprecation (null when none). */
  deprecations: Record<string, unknown>;
  /** upstream → what its registration says and what it serves (a new one changes ranking for every file). */
  upstreams: Record<string, unknown>;
  /** bundle → its selectors and description (`updated_at` left out: a bundle put back whole is the same bundle). */
  bundles: Record<string, unknown>;
  /** The audit drills still armed (every tenant's records): the next batch's, the sends' and the batches' counts. */
  drills: Drills;
}

export interface Drills {
  fail_next_batch: boolean;
  fail_next_send: number;
  fail_batches: number;
}

export type Send = (method: string, path: string) => Promise<{ status: number; body: any }>;

/**
 * Reads the state with `send` (an operator's credential). On the way it forgets what calls
 * taught the registry about each provider (statistics, breakers, liveness: each file's by
 * right, and a breaker one file opened must not refuse the next file's calls) — that reset
 * is the one request that answers a provider's whole record, max_concurrency included.
 */
export async function registryState(send: Send): Promise<RegistryState> {
  const state: RegistryState = {
    providers: {},
    deprecations: {},
    upstreams: {},
    bundles: {},
    drills: { fail_next_batch: false, fail_next_send: 0, fail_batches: 0 },
  };
  const ok = async (method: string, path: string) => {
    const res = await send(method, path);
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  // The reads go out together: one by one they cost every e2e file about two seconds (a
  // request per tool and per provider, each a round trip through the stack).
  const names = new Set<string>();
  const listed = (await ok("GET", "/v1/tools")).tools as { name: string }[];
  const [tools, upstreams, bundles, drills] = await Promise.all([
    Promise.all(listed.map(({ name }) => ok("GET", `/v1/tools/${name}`))),
    ok("GET", "/v1/admin/upstreams"),
    ok("GET", "/v1/admin/bundles"),
    armedDrills(send),
  ]);
  tools.forEach((tool, i) => {
    for (const v of tool.versions) {
      state.deprecations[`${listed[i]!.name}@${v.version}`] = v.deprecation;
      for (const p of v.providers) names.add(p.provider);
    }
  });
  for (const u of upstreams.upstreams) {
    names.add(u.name);
    state.upstreams[u.name] = registration(u);
  }
  for (const { updated_at: _, ...bundle } of bundles.bundles) state.bundles[bundle.name] = bundle;
  const sorted = [...names].sort();
  const records = await Promise.all(sorted.map((name) => ok("DELETE", `/v1/admin/providers/${name}/health`)));
  sorted.forEach((name, i) => {
    const p = records[i];
    state.providers[name] = {
      trust: p.trust,
      disabled: p.disabled === true,
      max_concurrency: p.max_concurrency ?? null,
    };
  });
  state.drills = drills;
  return state;
}

/**
 * The audit drills armed for everyone's records. A drill armed for one tenant is left out: it
 * holds back only that tenant's records, and each file's tenants are its own.
 */
export async function armedDrills(send: Send): Promise<Drills> {
  const res = await send("GET", "/v1/admin/audit/drills");
  if (res.status !== 200) throw new Error(`GET /v1/admin/audit/drills: ${res.status} ${JSON.stringify(res.body)}`);
  const d = res.body;
  return {
    fail_next_batch: d.fail_next_batch.armed,
    fail_next_send: d.fail_next_send.armed,
    fail_batches: d.fail_batches.armed,
  };
}

/** An upstream's registration and what it serves, without timestamps that move by themselves. */
function registration(u: any): unknown {
  const { status, pins, changes: _changes, ...rest } = u;
  return {
    ...rest,
    served: [...(status?.served ?? [])].sort(),
    withheld: [...(status?.withheld ?? [])].sort(),
    pins: (pins ?? []).map((p: { tool: string; hash: string }) => `${p.tool}#${p.hash}`).sort(),
  };
}
