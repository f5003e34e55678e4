/**
 * Deployment configuration, checked once per isolate when first read, so a bad
 * wrangler.jsonc fails loudly on the first request instead of misbehaving on some later one.
 */
import { parseVerifierFailurePolicy, type VerifierFailurePolicy } from "./pipeline/verifier-policy.ts";
import type { JwtConfig } from "./auth/jwt.ts";
import { parseJwtConfig } from "./auth/jwt-config.ts";
import { parseIdpConfig, type IdpConfig } from "./oauth/idp-config.ts";
import type { ProviderService } from "../providers/sdk/protocol.ts";
import { TRUST_ORDER, type Caller, type Trust } from "./contract.ts";
import { parseLimitsConfig, type LimitsConfig } from "./policy/limits.ts";
import { parseApprovalsConfig, type ApprovalsConfig } from "./policy/approvals.ts";
import { DEFAULT_RETRY, type RetryPolicy } from "./execution/retry.ts";
import { ConfigError } from "./config-error.ts";
import { parseBootstrapToken, refusePublishedTokenKey } from "./config-secrets.ts";

/** One provider Worker as deploy config declares it. Trust is the operator's, never the provider's word. */
export interface ProviderConfig {
  name: string;
  binding: string;
  trust: Trust;
}

/** The identity behind one of local development's well-known keys. */
export interface CallerConfig {
  tenant: string;
  agent: string;
  capabilities: string[];
  /** Provider names this caller may reach (docs/contract.md#capabilities level 1); "*" for all; none unless given. */
  channels: string[];
  /** "admin" may use /v1/admin; anything else may not. */
  role: string;
}

export interface RuntimeConfig {
  providers: ProviderConfig[];
  /**
   * DEV_API_KEY → DEV_CALLER and DEV_ADMIN_KEY → DEV_ADMIN: only with LOCAL_DEVELOPMENT=true,
   * which only .dev.vars sets (read by wrangler dev alone, never deployed). Without the flag
   * the keys are ignored, so a dev key copied into a deployment opens nothing; with it, they
   * still count only for requests from this machine (src/auth/local-only.ts).
   */
  devKeys: { key: string; caller: Caller }[];
  jwt?: JwtConfig;
  /** Signing in on the OAuth consent page through the identity provider (OAUTH_IDP_*); absent: API keys only. */
  idp?: IdpConfig;
  limits: LimitsConfig;
  /** Which tenants' calls wait for a person's approval (docs/contract.md#approvals; APPROVALS, absent: none). */
  approvals: ApprovalsConfig;
  maxRequestBytes: number;
  /** docs/contract.md#timeouts: the lowest-priority cap on every timeout. */
  systemMaxTimeoutMs: number;
  /** How stale the edge's copy of the registry may get before it is refreshed. */
  snapshotTtlMs: number;
  /** How long a call's health sample waits for its isolate's batch (src/registry/health-reporter.ts). */
  healthFlushMs: number;
  /** How often the registry re-reads provider manifests on its own. */
  manifestRefreshMs: number;
  /** How long a finished execution and its events stay readable (docs/contract.md#retention). */
  retentionMs: number;
  /** The audit database's size bound: the newest this many executions' rows are kept, whatever their retention (docs/scale.md 9.6). */
  auditMaxExecutions: number;
  /** …and at most this many bytes of them, estimated from each delivery's records (src/audit/size-bound.ts). */
  auditMaxBytes: number;
  /** docs/contract.md#cancellation: how long a cancelled provider gets to stop by itself, by default and at most. */
  cancelGraceMs: number;
  maxCancelGraceMs: number;
  /** The retry engine for idempotent tools (docs/contract.md#retries). */
  retry: RetryPolicy;
  /** Per effect, what level 2 does when the intent verifier fails or is late (src/pipeline/verifier-policy.ts). */
  verifierFailurePolicy: VerifierFailurePolicy;
  /** The one-time operator bootstrap's secret (BOOTSTRAP_TOKEN, src/routes/bootstrap.ts); absent: no bootstrap route. */
  bootstrapToken?: string;
}

export { ConfigError };

const cache = new WeakMap<object, RuntimeConfig>();

export function loadConfig(env: Env): RuntimeConfig {
  let config = cache.get(env);
  if (!config) {
    config = parseConfig(env);
    cache.set(env, config);
  }
  return config;
}

export function parseConfig(env: Env): RuntimeConfig {
  refusePublishedTokenKey(env);
  const config = readConfig(env);
  // docs/contract.md#idempotency and docs/contract.md#retention: a key must never outlive the execution it names.
  for (const [name, limits] of [
    ["default", config.limits.default],
    ...Object.entries(config.limits.tenants),
  ] as const) {
    const ttl = limits.idempotency_ttl_ms;
    if (ttl !== undefined && ttl > config.retentionMs) {
      throw new ConfigError(
        `TENANT_LIMITS ${name}: idempotency_ttl_ms (${ttl}) is longer than EXECUTION_RETENTION_MS (${config.retentionMs}); a key would outlive its execution`,
      );
    }
  }
  return config;
}

function readConfig(env: Env): RuntimeConfig {
  const jwt = parseJwtConfig(env);
  return {
    providers: parseProviders(env),
    devKeys: parseDevKeys(env),
    bootstrapToken: parseBootstrapToken(env),
    jwt,
    idp: parseIdpConfig(env, jwt),
    limits: guard("TENANT_LIMITS", () =>
      parseLimitsConfig(
        typeof env.TENANT_LIMITS === "string" ? safeJson("TENANT_LIMITS", env.TENANT_LIMITS) : env.TENANT_LIMITS,
      ),
    ),
    approvals: guard("APPROVALS", () =>
      parseApprovalsConfig(typeof env.APPROVALS === "string" ? safeJson("APPROVALS", env.APPROVALS) : env.APPROVALS),
    ),
    maxRequestBytes: positiveInt("MAX_REQUEST_BYTES", env.MAX_REQUEST_BYTES, 1024 * 1024),
    systemMaxTimeoutMs: positiveInt("SYSTEM_MAX_TIMEOUT_MS", env.SYSTEM_MAX_TIMEOUT_MS, 600_000),
    snapshotTtlMs: positiveInt("REGISTRY_SNAPSHOT_TTL_MS", env.REGISTRY_SNAPSHOT_TTL_MS, 5_000),
    healthFlushMs: positiveInt("HEALTH_FLUSH_MS", env.HEALTH_FLUSH_MS, 5_000),
    manifestRefreshMs: positiveInt("MANIFEST_REFRESH_MS", env.MANIFEST_REFRESH_MS, 300_000),
    retentionMs: positiveInt("EXECUTION_RETENTION_MS", env.EXECUTION_RETENTION_MS, 24 * 3600_000),
    auditMaxExecutions: positiveInt("AUDIT_MAX_EXECUTIONS", env.AUDIT_MAX_EXECUTIONS, 6_000_000),
    auditMaxBytes: positiveInt("AUDIT_MAX_BYTES", env.AUDIT_MAX_BYTES, 9_000_000_000),
    cancelGraceMs: positiveInt("CANCEL_GRACE_MS", env.CANCEL_GRACE_MS, 5_000),
    maxCancelGraceMs: positiveInt("MAX_CANCEL_GRACE_MS", env.MAX_CANCEL_GRACE_MS, 30_000),
    verifierFailurePolicy: guard("VERIFIER_FAILURE_POLICY", () =>
      parseVerifierFailurePolicy(
        typeof env.VERIFIER_FAILURE_POLICY === "string" && env.VERIFIER_FAILURE_POLICY !== ""
          ? safeJson("VERIFIER_FAILURE_POLICY", env.VERIFIER_FAILURE_POLICY)
          : env.VERIFIER_FAILURE_POLICY,
      ),
    ),
    retry: {
      max_attempts: positiveInt("RETRY_MAX_ATTEMPTS", env.RETRY_MAX_ATTEMPTS, DEFAULT_RETRY.max_attempts),
      base_ms: positiveInt("RETRY_BASE_MS", env.RETRY_BASE_MS, DEFAULT_RETRY.base_ms),
      cap_ms: positiveInt("RETRY_CAP_MS", env.RETRY_CAP_MS, DEFAULT_RETRY.cap_ms),
    },
  };
}

/**
 * A provider's service binding by the name deploy configuration gives it (PROVIDERS), or
 * undefined when no such Worker is bound here. Looked up by name because operators add
 * providers in configuration; what it offers is the provider protocol (docs/contract.md#provider-execution).
 */
export function providerService(env: Env, binding: string): ProviderService | undefined {
  const service: unknown = Reflect.get(env, binding);
  return service !== null && typeof service === "object" && typeof (service as ProviderService).invoke === "function"
    ? (service as ProviderService)
    : undefined;
}

export function providerBinding(env: Env, provider: ProviderConfig): ProviderService | undefined {
  return providerService(env, provider.binding);
}

function parseProviders(env: Env): ProviderConfig[] {
  const raw = typeof env.PROVIDERS === "string" ? safeJson("PROVIDERS", env.PROVIDERS) : env.PROVIDERS;
  if (!Array.isArray(raw) || raw.length === 0)
    throw new ConfigError("PROVIDERS must be a non-empty list of {name, binding, trust}");
  const names = new Set<string>();
  return raw.map((p, i) => {
    if (typeof p?.name !== "string" || !/^[a-z][a-z0-9-]*$/.test(p.name))
      throw new ConfigError(`PROVIDERS[${i}].name must be a lowercase word`);
    if (names.has(p.name)) throw new ConfigError(`PROVIDERS[${i}].name ${p.name} is listed twice`);
    names.add(p.name);
    if (typeof p.binding !== "string" || p.binding === "")
      throw new ConfigError(`PROVIDERS[${i}].binding must name a service binding`);
    if (!TRUST_ORDER.includes(p.trust))
      throw new ConfigError(`PROVIDERS[${i}].trust must be one of ${TRUST_ORDER.join(", ")}`);
    return { name: p.name, binding: p.binding, trust: p.trust };
  });
}

function parseCaller(name: string, value: unknown, role: "tenant" | "admin"): CallerConfig {
  const raw = (typeof value === "string" ? safeJson(name, value) : value) as Partial<CallerConfig> | undefined;
  // Least privilege: capabilities and channels are what the configuration names, nothing more.
  const caller = {
    tenant: "dev",
    agent: "dev",
    capabilities: [] as string[],
    channels: [] as string[],
    ...(raw ?? {}),
    role,
  };
  if (typeof caller.tenant !== "string" || typeof caller.agent !== "string")
    throw new ConfigError(`${name} needs tenant and agent strings`);
  if (!isStringList(caller.capabilities) || !isStringList(caller.channels))
    throw new ConfigError(`${name} capabilities and channels must be lists of strings`);
  return caller;
}

function parseDevKeys(env: Env): RuntimeConfig["devKeys"] {
  const keys: RuntimeConfig["devKeys"] = [];
  if (env.LOCAL_DEVELOPMENT !== "true") {
    if (env.DEV_API_KEY || env.DEV_ADMIN_KEY)
      console.warn(
        JSON.stringify({
          msg: "DEV_API_KEY / DEV_ADMIN_KEY ignored: LOCAL_DEVELOPMENT is not true (only .dev.vars sets it)",
        }),
      );
    return keys;
  }
  const add = (keyName: string, key: unknown, callerName: string, caller: unknown, role: "tenant" | "admin") => {
    if (key === undefined || key === "") return;
    if (typeof key !== "string" || !/^trt_[A-Za-z0-9_-]{16,}$/.test(key))
      throw new ConfigError(`${keyName} must look like trt_ followed by at least 16 characters`);
    keys.push({ key, caller: parseCaller(callerName, caller, role) });
  };
  add("DEV_API_KEY", env.DEV_API_KEY, "DEV_CALLER", env.DEV_CALLER, "tenant");
  add("DEV_ADMIN_KEY", env.DEV_ADMIN_KEY, "DEV_ADMIN", env.DEV_ADMIN, "admin");
  return keys;
}

function guard<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw err instanceof ConfigError ? err : new ConfigError(`${name}: ${(err as Error).message}`);
  }
}

function positiveInt(name: string, value: unknown, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n <= 0)
    throw new ConfigError(`${name} must be a positive integer`);
  return n;
}

function safeJson(name: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError(`${name} is not valid JSON`);
  }
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === "string");
}
