/**
 * Per-tenant limits (docs/contract.md#limits: per-call limits are bounded by tenant and tool maximums).
 * The rule everywhere: a limit a caller *asks for* above the maximum is clamped (and the
 * effective value is reported, e.g. `execution.timeout_ms`); a limit a caller *hits* is
 * refused (payload 413, rate and concurrency 429).
 */
export interface TenantLimits {
  /** Token bucket for all of the tenant's calls. */
  requests_per_second: number;
  burst: number;
  /** Token bucket per tenant and tool. */
  tool_requests_per_second: number;
  tool_burst: number;
  /** Executions of the tenant running at once. */
  max_concurrent: number;
  max_timeout_ms: number;
  max_output_bytes: number;
  max_payload_bytes: number;
  /** How long an idempotency key stays bound to its execution (docs/contract.md#idempotency). */
  idempotency_ttl_ms: number;
  /** Event streams of the tenant open at once, on every face (SSE, Connect, RPC, MCP). */
  max_streams: number;
  /**
   * Executions that may wait for a slot at once (docs/contract.md#waiting): past `max_concurrent` a call waits
   * in `queued`, first come first served; past this many waiting it is refused (429).
   */
  max_queued: number;
  /**
   * How long an async execution may wait in `queued` and `scheduled` before it fails with
   * `overloaded` (a sync call waits at most its own budget).
   */
  max_wait_ms: number;
}

export const DEFAULT_TENANT_LIMITS: TenantLimits = {
  requests_per_second: 50,
  burst: 100,
  tool_requests_per_second: 25,
  tool_burst: 50,
  max_concurrent: 100,
  max_timeout_ms: 600_000,
  max_output_bytes: 1024 * 1024,
  max_payload_bytes: 1024 * 1024,
  idempotency_ttl_ms: 24 * 3600_000,
  max_streams: 200,
  max_queued: 100,
  max_wait_ms: 600_000,
};

export interface LimitsConfig {
  default: TenantLimits;
  tenants: Record<string, Partial<TenantLimits>>;
}

/**
 * A tenant's limits: the default, overridden by its own entry. An entry whose name ends in `*`
 * covers every tenant whose name starts with what precedes it (a family of tenants, e.g.
 * `"trial-*"`); an exact name wins over a family, and the longest family over a shorter one.
 */
export function limitsFor(config: LimitsConfig, tenant: string): TenantLimits {
  return { ...config.default, ...(tenantEntry(config.tenants, tenant) ?? {}) };
}

/**
 * The most a request body of this tenant may be, on every face: the system's `MAX_REQUEST_BYTES`
 * or the tenant's `max_payload_bytes`, whichever is smaller.
 */
export function payloadLimit(config: { maxRequestBytes: number; limits: LimitsConfig }, tenant: string): number {
  return Math.min(config.maxRequestBytes, limitsFor(config.limits, tenant).max_payload_bytes);
}

/** The entry for a tenant by the rule above: its own name, else the longest family that covers it. */
export function tenantEntry<T>(entries: Record<string, T>, tenant: string): T | undefined {
  if (Object.hasOwn(entries, tenant)) return entries[tenant];
  let best: string | undefined;
  for (const name of Object.keys(entries)) {
    if (name.endsWith("*") && tenant.startsWith(name.slice(0, -1)) && (best === undefined || name.length > best.length))
      best = name;
  }
  return best ? entries[best] : undefined;
}

/** Checks a TENANT_LIMITS value: every figure a positive integer, no unknown names. */
export function parseLimitsConfig(value: unknown): LimitsConfig {
  const raw = (value ?? {}) as { default?: unknown; tenants?: unknown };
  const check = (v: unknown, where: string): Partial<TenantLimits> => {
    if (v === undefined) return {};
    if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`${where} must be an object`);
    for (const [k, n] of Object.entries(v)) {
      if (!Object.hasOwn(DEFAULT_TENANT_LIMITS, k)) throw new Error(`${where}.${k} is not a known limit`);
      if (typeof n !== "number" || !(n > 0) || !Number.isFinite(n))
        throw new Error(`${where}.${k} must be a positive number`);
    }
    return v as Partial<TenantLimits>;
  };
  const tenants: Record<string, Partial<TenantLimits>> = {};
  if (raw.tenants !== undefined) {
    if (raw.tenants === null || typeof raw.tenants !== "object")
      throw new Error("TENANT_LIMITS.tenants must be an object");
    for (const [t, v] of Object.entries(raw.tenants)) tenants[t] = check(v, `TENANT_LIMITS.tenants.${t}`);
  }
  return { default: { ...DEFAULT_TENANT_LIMITS, ...check(raw.default, "TENANT_LIMITS.default") }, tenants };
}
