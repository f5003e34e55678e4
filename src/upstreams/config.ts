/**
 * Upstream MCP servers as providers (docs/contract.md#upstreams): what an operator registers, and how it is
 * checked. The same rules apply to `UPSTREAMS` in deploy configuration (parsed once per
 * isolate) and to a registration through the admin API (persisted in the registry object).
 *
 * MCP says nothing about latency, effects or idempotency, and a server's own annotations are
 * hints it may lie in: they are never trusted for policy. The operator says them, per upstream
 * (`defaults`) and per tool (`tool_policies`); what is left unsaid is the conservative choice
 * (slow, effects `send`, not idempotent: no retries, and the intent check blocks).
 */
import { loadConfig } from "../config.ts";
import { TRUST_ORDER, type Trust } from "../contract.ts";
import { parseSemver } from "../registry/semver.ts";
import { EFFECTS, LATENCY_CLASSES, type Effect, type LatencyClass } from "../../providers/sdk/protocol.ts";

/** What a served tool does when the upstream changes its definition: keep the approved one, or withhold the tool. */
export type OnChange = "keep" | "withhold";

/** The operator's word on what MCP does not say. */
export interface ToolPolicy {
  latency_class: LatencyClass;
  effects: Effect;
  idempotent: boolean;
  /** docs/contract.md#capabilities level 3, as for a native tool (`network:{url.host}` templates included). */
  capability_required: string | null;
  max_timeout_ms?: number;
}

export interface UpstreamConfig {
  /** Its provider name (ranking, channels, health), unique among providers and upstreams. */
  name: string;
  /** Exactly one of: a service binding to an MCP Worker, or an https URL of its MCP endpoint. */
  binding?: string;
  url?: string;
  trust: Trust;
  /** Put before each tool's name in the registry ("" keeps the upstream's names). */
  prefix: string;
  /** The upstream's tools that may be served, by their names there; ["*"] for all. */
  tools: string[];
  defaults: ToolPolicy;
  tool_policies: Record<string, Partial<ToolPolicy>>;
  /** The NAME of a Worker secret whose value is sent as `Authorization: Bearer …` (never the value). */
  secret?: string;
  /** Tenants may store their own token for this upstream (sent instead of the secret, for their calls only). */
  tenant_credentials: boolean;
  on_change: OnChange;
  /** The version its tools are offered under. */
  version: string;
  /** Where the registration lives: deploy configuration, or the admin API. */
  source: "config" | "admin";
}

export const CONSERVATIVE_POLICY: ToolPolicy = {
  latency_class: "slow",
  effects: "send",
  idempotent: false,
  capability_required: null,
};

/** A registration the runtime refuses, naming the field at fault. */
export class UpstreamConfigError extends Error {
  readonly field: string;
  constructor(field: string, message: string) {
    super(message);
    this.name = "UpstreamConfigError";
    this.field = field;
  }
}

const FIELDS = [
  "name",
  "binding",
  "url",
  "trust",
  "prefix",
  "tools",
  "defaults",
  "tool_policies",
  "secret",
  "tenant_credentials",
  "on_change",
  "version",
];
const POLICY_FIELDS = ["latency_class", "effects", "idempotent", "capability_required", "max_timeout_ms"];
const ENV_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;
const TOOL_NAME = /^[A-Za-z0-9_./-]{1,128}$/;

/** Checks one registration's shape (nothing that needs the environment: see `checkAgainstEnv`). */
export function parseUpstream(raw: unknown, source: UpstreamConfig["source"]): UpstreamConfig {
  if (!isObject(raw)) throw new UpstreamConfigError("", "an upstream must be an object");
  for (const key of Object.keys(raw))
    if (!FIELDS.includes(key)) throw new UpstreamConfigError(key, `unknown field ${JSON.stringify(key)}`);
  const name = raw.name;
  if (typeof name !== "string" || !/^[a-z][a-z0-9-]{0,62}$/.test(name))
    throw new UpstreamConfigError("name", "name must be a lowercase word (a-z, 0-9, -)");
  if ((raw.binding === undefined) === (raw.url === undefined))
    throw new UpstreamConfigError("url", "give exactly one of binding (a service binding) and url (https)");
  if (raw.binding !== undefined && (typeof raw.binding !== "string" || !ENV_NAME.test(raw.binding)))
    throw new UpstreamConfigError("binding", "binding must name a service binding (A-Z, 0-9, _)");
  if (raw.url !== undefined && (typeof raw.url !== "string" || raw.url.length > 2048 || !URL.canParse(raw.url)))
    throw new UpstreamConfigError("url", "url must be an absolute URL");
  if (!TRUST_ORDER.includes(raw.trust as Trust))
    throw new UpstreamConfigError("trust", `trust must be one of ${TRUST_ORDER.join(", ")}`);
  const prefix = raw.prefix ?? "";
  if (typeof prefix !== "string" || !/^[a-z0-9._-]{0,64}$/.test(prefix))
    throw new UpstreamConfigError("prefix", "prefix must be up to 64 of a-z 0-9 . _ -");
  const tools = raw.tools;
  if (
    !Array.isArray(tools) ||
    tools.length === 0 ||
    tools.length > 500 ||
    !tools.every((t) => typeof t === "string" && (t === "*" || TOOL_NAME.test(t)))
  ) {
    throw new UpstreamConfigError("tools", 'tools must list the upstream tools to serve (or ["*"] for all)');
  }
  if (tools.includes("*") && tools.length > 1) throw new UpstreamConfigError("tools", '"*" stands alone');
  if (raw.secret !== undefined && (typeof raw.secret !== "string" || !ENV_NAME.test(raw.secret)))
    throw new UpstreamConfigError(
      "secret",
      "secret must be the NAME of a Worker secret (A-Z, 0-9, _), never its value",
    );
  if (raw.tenant_credentials !== undefined && typeof raw.tenant_credentials !== "boolean")
    throw new UpstreamConfigError("tenant_credentials", "tenant_credentials must be a boolean");
  const onChange = raw.on_change ?? "keep";
  if (onChange !== "keep" && onChange !== "withhold")
    throw new UpstreamConfigError("on_change", 'on_change must be "keep" or "withhold"');
  const version = raw.version ?? "1.0.0";
  if (typeof version !== "string" || !parseSemver(version))
    throw new UpstreamConfigError("version", "version must be a semantic version");
  const defaults = { ...CONSERVATIVE_POLICY, ...parsePolicy(raw.defaults, "defaults") };
  if (raw.tool_policies !== undefined && !isObject(raw.tool_policies))
    throw new UpstreamConfigError("tool_policies", "tool_policies must map tool names to policies");
  const policies: Record<string, Partial<ToolPolicy>> = {};
  for (const [tool, p] of Object.entries(raw.tool_policies ?? {}))
    policies[tool] = parsePolicy(p, `tool_policies.${tool}`);
  return {
    name,
    ...(raw.binding !== undefined ? { binding: raw.binding as string } : { url: raw.url as string }),
    trust: raw.trust as Trust,
    prefix,
    tools: [...tools] as string[],
    defaults,
    tool_policies: policies,
    ...(raw.secret !== undefined ? { secret: raw.secret as string } : {}),
    tenant_credentials: raw.tenant_credentials === true,
    on_change: onChange,
    version,
    source,
  };
}

function parsePolicy(raw: unknown, field: string): Partial<ToolPolicy> {
  if (raw === undefined) return {};
  if (!isObject(raw)) throw new UpstreamConfigError(field, `${field} must be an object`);
  for (const key of Object.keys(raw))
    if (!POLICY_FIELDS.includes(key))
      throw new UpstreamConfigError(`${field}.${key}`, `unknown field ${JSON.stringify(key)}`);
  const out: Partial<ToolPolicy> = {};
  if (raw.latency_class !== undefined) {
    if (!LATENCY_CLASSES.includes(raw.latency_class as LatencyClass))
      throw new UpstreamConfigError(
        `${field}.latency_class`,
        `latency_class must be one of ${LATENCY_CLASSES.join(", ")}`,
      );
    out.latency_class = raw.latency_class as LatencyClass;
  }
  if (raw.effects !== undefined) {
    if (!EFFECTS.includes(raw.effects as Effect))
      throw new UpstreamConfigError(`${field}.effects`, `effects must be one of ${EFFECTS.join(", ")}`);
    out.effects = raw.effects as Effect;
  }
  if (raw.idempotent !== undefined) {
    if (typeof raw.idempotent !== "boolean")
      throw new UpstreamConfigError(`${field}.idempotent`, "idempotent must be a boolean");
    out.idempotent = raw.idempotent;
  }
  if (raw.capability_required !== undefined) {
    const c = raw.capability_required;
    if (c !== null && (typeof c !== "string" || !/^[a-z][a-z0-9_-]*:\S{1,200}$/.test(c)))
      throw new UpstreamConfigError(`${field}.capability_required`, "capability_required must be null or kind:value");
    out.capability_required = c as string | null;
  }
  if (raw.max_timeout_ms !== undefined) {
    if (typeof raw.max_timeout_ms !== "number" || !Number.isSafeInteger(raw.max_timeout_ms) || raw.max_timeout_ms <= 0)
      throw new UpstreamConfigError(`${field}.max_timeout_ms`, "max_timeout_ms must be a positive integer");
    out.max_timeout_ms = raw.max_timeout_ms;
  }
  return out;
}

/** The policy of one upstream tool: its own, then the upstream's defaults. */
export function policyFor(upstream: UpstreamConfig, tool: string): ToolPolicy {
  return { ...upstream.defaults, ...(upstream.tool_policies[tool] ?? {}) };
}

export function allows(upstream: UpstreamConfig, tool: string): boolean {
  return upstream.tools.includes("*") || upstream.tools.includes(tool);
}

const cache = new WeakMap<object, UpstreamConfig[]>();

/**
 * `UPSTREAMS` from deploy configuration (a JSON list or TOML array of tables), parsed once per
 * isolate. A malformed entry or a name that a provider or another upstream already has is a
 * configuration error, as for PROVIDERS. A missing binding or secret is not: secrets are set
 * after deploying, so the registry reports it as a problem and leaves that upstream out.
 */
export function loadUpstreams(env: Env): UpstreamConfig[] {
  let upstreams = cache.get(env);
  if (!upstreams) {
    upstreams = parseUpstreams(
      envValue(env, "UPSTREAMS"),
      loadConfig(env).providers.map((p) => p.name),
    );
    cache.set(env, upstreams);
  }
  return upstreams;
}

export function parseUpstreams(raw: unknown, providerNames: string[]): UpstreamConfig[] {
  if (raw === undefined || raw === "") return [];
  let list = raw;
  if (typeof raw === "string") {
    try {
      list = JSON.parse(raw);
    } catch {
      throw new UpstreamConfigError("UPSTREAMS", "configuration: UPSTREAMS is not valid JSON");
    }
  }
  if (!Array.isArray(list))
    throw new UpstreamConfigError("UPSTREAMS", "configuration: UPSTREAMS must be a list of upstreams");
  const names = new Set(providerNames);
  return list.map((entry, i) => {
    let upstream: UpstreamConfig;
    try {
      upstream = parseUpstream(entry, "config");
    } catch (err) {
      if (err instanceof UpstreamConfigError)
        throw new UpstreamConfigError(
          err.field,
          `configuration: UPSTREAMS[${i}]${err.field ? `.${err.field}` : ""}: ${err.message}`,
        );
      throw err;
    }
    if (names.has(upstream.name))
      throw new UpstreamConfigError(
        "name",
        `configuration: UPSTREAMS[${i}].name ${upstream.name} is already a provider's or an upstream's`,
      );
    names.add(upstream.name);
    return upstream;
  });
}

/** A setting `wrangler types` cannot know (a secret, or a var set only in some environments). */
export function envValue(env: Env, name: string): unknown {
  return Reflect.get(env, name);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
