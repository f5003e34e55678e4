/**
 * Stages 2-5 composed: from a checked request to a dispatchable plan, or (mode "dry_run") to
 * an account of what would happen. Every face reaches here through the execution service, so
 * each has the same semantics (docs/contract.md#faces). Plain code: it runs at the edge, and inside a
 * keyed call's object (which plans its call itself, once per key).
 */
import type { Caller, CapabilityDecision, DryRunReport, ExecutionRequest, Face, Violation } from "../contract.ts";

export type { DryRunReport };
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import type { DeprecationNotice, Offering, RegistrySnapshot } from "../registry/catalog.ts";
import { pastSunset } from "../registry/compose.ts";
import { breakerStateOf, partitionOfferings, statsFor, type Eligible, type Excluded } from "../registry/eligibility.ts";
import { rankProviders, type RankedOffering } from "../registry/rank.ts";
import { getSnapshot } from "../registry/snapshot-cache.ts";
import { gateStub } from "../object-stubs.ts";
import { effectiveTimeoutMs, LATENCY_CLASS_DEFAULT_MS } from "./budget.ts";
import { checkToolCapability, reachableOfferings } from "./capability.ts";
import type { ExecutionPlan } from "../execution/execution-plan.ts";
import { resolveTool } from "./lookup.ts";
import { checkIntent, verifyNow } from "./intent.ts";
import { validateInput } from "./schema.ts";
import { limitsFor, type TenantLimits } from "../policy/limits.ts";
import { approvalNeeded, approvalRuleFor } from "../policy/approvals.ts";
import type { TraceContext } from "../audit/trace.ts";
import { canonicalJson } from "../schema/schema-hash.ts";
import { DEFAULT_RETRY_AFTER_MS } from "../retry-after.ts";
import { sha256Hex } from "../schema/sha256.ts";

/** Default cap on a tool's output (docs/contract.md#limits `limits.max_output_bytes`). */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/** Stages 2 and 3 (level 1) and the ranking: who could serve, and in what order. */
interface Decision {
  snapshot: RegistrySnapshot;
  tool: string;
  version: string;
  deprecation?: DeprecationNotice;
  reachable: Offering[];
  ranked: (RankedOffering & { trial: boolean })[];
  excluded: Excluded[];
}

async function decide(
  env: Env,
  caller: Caller,
  request: ExecutionRequest,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<Decision> {
  if (request.tenant !== undefined && request.tenant !== caller.tenant) {
    // The credential decides the tenant; the body may only repeat it.
    throw new RuntimeError("forbidden", "field tenant does not match the caller's tenant", { field: "tenant" });
  }
  const snapshot = await getSnapshot(env, waitUntil);
  const now = Date.now();
  const resolved = resolveTool(snapshot, caller, request.tool, request.version, request.provider);
  const deprecation = snapshot.deprecations[`${resolved.tool.name}@${resolved.version}`];
  if (pastSunset(deprecation, now)) {
    throw new RuntimeError(
      "tool_deprecated",
      `${resolved.tool.name}@${resolved.version} was sunset on ${deprecation.sunset}`,
      {
        tool: resolved.tool.name,
        version: resolved.version,
        sunset: deprecation.sunset,
        replacement: deprecation.replacement,
      },
    );
  }
  // The lookup kept only what the caller's channels reach; level 1 checked again, as a second lock.
  const reachable = reachableOfferings(caller, resolved.offerings, request.provider);
  const { eligible, excluded } = partitionOfferings(reachable, snapshot, now);
  const trialOf = new Map(eligible.map((e: Eligible) => [e.offering.provider, e.trial]));
  const ranked = rankProviders(
    eligible.map((e) => e.offering),
    { explicit: request.provider, stats: statsFor(snapshot, resolved.tool.name) },
  ).map((r) => ({ ...r, trial: trialOf.get(r.offering.provider) ?? false }));
  return { snapshot, tool: resolved.tool.name, version: resolved.version, deprecation, reachable, ranked, excluded };
}

/**
 * Stage 3 level 1 alone (the body's tenant, the tool, the caller's channels): what a keyed
 * call must pass before a stored execution is replayed to it (src/execution/service.ts).
 */
export async function checkReach(
  env: Env,
  caller: Caller,
  request: ExecutionRequest,
  waitUntil?: (p: Promise<unknown>) => void,
): Promise<string> {
  if (request.tenant !== undefined && request.tenant !== caller.tenant)
    throw new RuntimeError("forbidden", "field tenant does not match the caller's tenant", { field: "tenant" });
  const snapshot = await getSnapshot(env, waitUntil);
  const resolved = resolveTool(snapshot, caller, request.tool, request.version, request.provider);
  reachableOfferings(caller, resolved.offerings, request.provider);
  return resolved.tool.name;
}

/** Where a plan is being made: when the call was accepted, its trace and face, and the id it will run under. */
export interface PlanMeta {
  acceptedAt: number;
  trace: TraceContext;
  face: Face;
  executionId: string;
  /** A keyed call's request fingerprint (src/pipeline/idempotency.ts). */
  fingerprint?: string;
  /** Keeps background work (a snapshot refresh, a background intent verdict) alive. */
  waitUntil?: (p: Promise<unknown>) => void;
  /**
   * Admission, when the caller admits the call itself (the fast path): run once the tool is
   * known and before level 2, so a call over its tenant's rate never reaches the verifier.
   * `approval`: the call waits for a person first, and is admitted where it waits.
   */
  admit?: (tool: string, limits: TenantLimits, approval: boolean) => Promise<void>;
  /** The call's rate token was taken before level 2 (src/policy/admission.ts `chargeCall`). */
  paid?: boolean;
}

export interface PlannedExecution {
  plan: ExecutionPlan;
  /** Set while the version is deprecated but not yet sunset (Deprecation/Sunset headers). */
  deprecation?: DeprecationNotice;
}

/** Stages 2-5; throws the stage's RuntimeError when the call is refused. */
export async function planExecution(
  env: Env,
  caller: Caller,
  request: ExecutionRequest,
  meta: PlanMeta,
): Promise<PlannedExecution> {
  const config = loadConfig(env);
  const limits = limitsFor(config.limits, caller.tenant);
  const d = await decide(env, caller, request, meta.waitUntil);
  // Stage 3 levels 2 and 3 and stage 4 on the best candidate. A half-open provider's trial
  // (docs/contract.md#circuit-breakers) is asked of the registry only when the call is about to be dispatched, after
  // admission (src/execution/trial.ts): a call refused before then never holds a trial.
  const best = d.ranked[0];
  if (!best) throw noHealthyProvider(d.tool, d.version, d.excluded);
  await meta.admit?.(
    d.tool,
    limits,
    approvalOf(config, caller.tenant, d.tool, best.offering.manifest.effects).approval !== undefined,
  );
  const pick: Picked = { ...(await checkCandidate(env, caller, request, best.offering, meta)), ranked: best };
  const chosen = pick.ranked.offering;
  const { intent, level3, input } = pick;
  // Fallbacks (for the retry engine, and for a trial another call holds): only providers
  // offering the very same contract (schemas, capability, idempotency, effects), and none on
  // trial, so that a retry changes nothing but who serves it.
  const ranked = [
    pick.ranked,
    ...d.ranked.filter((r) => r !== pick.ranked && !r.trial && sameContract(r.offering, chosen)),
  ];
  // Stage 5: the plan that is dispatched.
  const timeout = effectiveTimeoutMs({
    requestedMs: request.limits.timeout_ms,
    latencyClass: chosen.manifest.latency_class,
    toolMaxMs: chosen.manifest.max_timeout_ms,
    systemMaxMs: Math.min(config.systemMaxTimeoutMs, limits.max_timeout_ms),
  });
  const classTimeout = Math.min(
    LATENCY_CLASS_DEFAULT_MS[chosen.manifest.latency_class],
    chosen.manifest.max_timeout_ms ?? Infinity,
  );
  const plan: ExecutionPlan = {
    execution_id: meta.executionId,
    tenant: caller.tenant,
    agent: caller.agent, // docs/contract.md#initiation: set by the runtime, never by the body (context.agent is only context)
    project: request.project ?? null,
    face: meta.face,
    tool: d.tool,
    version: d.version,
    mode: request.mode === "async" ? "async" : "sync",
    providers: ranked.map((r) => ({
      provider: r.offering.provider,
      binding: r.offering.binding,
      trial: r.trial,
      ...limitOf(d.snapshot, r.offering.provider),
      ...(r.offering.upstream ? { upstream: r.offering.upstream } : {}),
    })),
    input,
    context: request.context,
    timeout_ms: timeout.timeout_ms,
    accepted_at: meta.acceptedAt,
    output_hash: chosen.output_hash,
    // Schemas known only at run time travel with the call (docs/contract.md#validation): no prebuilt validator names them.
    ...(chosen.upstream ? { output_schema: chosen.manifest.output_schema } : {}),
    max_output_bytes: Math.min(
      request.limits.max_output_bytes ?? limits.max_output_bytes,
      limits.max_output_bytes,
      DEFAULT_MAX_OUTPUT_BYTES,
    ),
    idempotent: chosen.manifest.idempotent,
    effects: chosen.manifest.effects,
    capability: capabilityDecision(d, intent, level3),
    retention_ms: config.retentionMs,
    params_hash: await sha256Hex(canonicalJson(request.input)),
    trace: meta.trace,
    correlation_id: typeof request.context.correlation_id === "string" ? request.context.correlation_id : null,
    retry: config.retry,
    attempt_cap_ms: timeout.source === "caller" ? timeout.timeout_ms : classTimeout,
    class_timeout_ms: classTimeout,
    limits,
    partial_merge: chosen.manifest.partial_merge ?? "replace",
    ...(meta.paid ? { paid: true } : {}),
    ...(request.idempotency_key && meta.fingerprint
      ? {
          idempotency: {
            key: request.idempotency_key,
            fingerprint: meta.fingerprint,
            ttl_ms: limits.idempotency_ttl_ms,
          },
        }
      : {}),
    ...approvalOf(config, caller.tenant, d.tool, chosen.manifest.effects),
  };
  return { plan, ...(d.deprecation ? { deprecation: d.deprecation } : {}) };
}

/** The tenant's approval rule for this tool, when it holds the call for a person (docs/contract.md#approvals). */
function approvalOf(
  config: ReturnType<typeof loadConfig>,
  tenant: string,
  tool: string,
  effects: Offering["manifest"]["effects"],
): { approval?: { rule: string; window_ms: number } } {
  const rule = approvalRuleFor(config.approvals, tenant);
  const matched = approvalNeeded(rule, tool, effects);
  return matched ? { approval: { rule: matched, window_ms: rule.window_ms } } : {};
}

/** A provider's max_concurrency from the snapshot (its manifest's or an operator's), when it has one. */
function limitOf(snapshot: RegistrySnapshot, provider: string): { max_concurrency?: number } {
  const limit = snapshot.providers.find((p) => p.name === provider)?.max_concurrency;
  return limit ? { max_concurrency: limit } : {};
}

export async function dryRun(env: Env, caller: Caller, request: ExecutionRequest): Promise<DryRunReport> {
  const d = await decide(env, caller, request);
  const now = Date.now();
  const chosen = d.ranked[0]?.offering;
  let capability: DryRunReport["capability"] = { allowed: false };
  let schema: DryRunReport["schema"] = { valid: false, violations: [] };
  if (chosen) {
    try {
      const level2 = await verifyNow(env, caller, chosen, request.context);
      capability = {
        allowed: true,
        decision: capabilityDecision(
          d,
          level2,
          checkToolCapability(caller, chosen.manifest.capability_required, request.input),
        ),
      };
    } catch (err) {
      if (!(err instanceof RuntimeError)) throw err;
      capability = {
        allowed: false,
        denial: { level: err.details?.level, reason: err.message, required: err.details?.required },
      };
    }
    try {
      validateInput(request.input, {
        hash: chosen.input_hash,
        schema: chosen.manifest.input_schema,
        coercion: chosen.manifest.coercion,
      });
      schema = { valid: true, violations: [] };
    } catch (err) {
      if (!(err instanceof RuntimeError)) throw err;
      schema = { valid: false, violations: (err.details?.violations as Violation[]) ?? [] };
    }
  }
  const stats = statsFor(d.snapshot, d.tool);
  // Each ranked provider's room (its gate, for those with a limit); the call goes to
  // the first with room among those that serve this very contract, or waits for the best.
  const room = await Promise.all(
    d.ranked.map(async (r) => {
      const limit = limitOf(d.snapshot, r.offering.provider).max_concurrency ?? null;
      if (limit === null) return { max_concurrency: null, in_flight: null, room: true };
      const load = await gateStub(env, r.offering.provider).load();
      return { max_concurrency: limit, in_flight: load.in_flight, room: load.waiting === 0 && load.in_flight < limit };
    }),
  );
  const serving = d.ranked
    .map((r, i) => ({ r, i }))
    .filter(
      ({ r }) => chosen !== undefined && (r.offering === chosen || (!r.trial && sameContract(r.offering, chosen))),
    );
  const target = serving.find(({ i }) => room[i].room) ?? serving[0];
  const runnable = chosen !== undefined && capability.allowed && schema.valid;
  const config = loadConfig(env);
  return {
    mode: "dry_run",
    tool: d.tool,
    version: d.version,
    provider: runnable && target ? target.r.offering.provider : null,
    ranking: d.ranked.map((r, i) => ({
      place: i + 1,
      provider: r.offering.provider,
      trust: r.offering.trust,
      p50_ms: stats[r.offering.provider]?.p50_ms ?? null,
      error_rate: stats[r.offering.provider]?.error_rate ?? null,
      breaker: breakerStateOf(d.snapshot, r.offering.provider, d.tool, now),
      reason: r.trial ? `${r.reason}; would be the half-open trial call` : r.reason,
      ...room[i],
    })),
    waits_for_capacity: runnable && target !== undefined && !room[target.i].room,
    approval: chosen ? (approvalOf(config, caller.tenant, d.tool, chosen.manifest.effects).approval ?? null) : null,
    excluded: d.excluded.map((e) => ({
      provider: e.offering.provider,
      reason: e.reason,
      retry_at: e.retry_at ? new Date(e.retry_at).toISOString() : null,
    })),
    capability,
    schema,
    deprecation: d.deprecation ?? null,
  };
}

/**
 * docs/contract.md#circuit-breakers, half-open: a provider whose cooldown is over serves exactly one trial call,
 * granted by the registry; without the grant it is passed over like an open one.
 */
interface Picked {
  ranked: Decision["ranked"][number];
  intent: CapabilityDecision["level2"];
  level3: CapabilityDecision["level3"];
  input: unknown;
}

async function checkCandidate(
  env: Env,
  caller: Caller,
  request: ExecutionRequest,
  offering: Offering,
  meta: PlanMeta,
): Promise<Omit<Picked, "ranked">> {
  const intent = await checkIntent(env, caller, offering, request.context, meta.executionId, meta.waitUntil);
  const level3 = checkToolCapability(caller, offering.manifest.capability_required, request.input);
  const input = validateInput(request.input, {
    hash: offering.input_hash,
    schema: offering.manifest.input_schema,
    coercion: offering.manifest.coercion,
  });
  return { intent, level3, input };
}

function sameContract(a: Offering, b: Offering): boolean {
  return (
    a.input_hash === b.input_hash &&
    a.output_hash === b.output_hash &&
    a.manifest.capability_required === b.manifest.capability_required &&
    a.manifest.idempotent === b.manifest.idempotent &&
    a.manifest.effects === b.manifest.effects &&
    a.manifest.coercion === b.manifest.coercion
  );
}

/** No provider can take the call now (docs/contract.md#circuit-breakers); every one is named with why, and when to try again. */
export function noHealthyProvider(
  tool: string,
  version: string,
  excluded: { offering: { provider: string }; reason: string; retry_at?: number }[],
): RuntimeError {
  const now = Date.now();
  const soonest = Math.min(...excluded.map((e) => e.retry_at ?? now + DEFAULT_RETRY_AFTER_MS));
  const retryAfter = Math.max(1_000, Number.isFinite(soonest) ? soonest - now : DEFAULT_RETRY_AFTER_MS);
  return new RuntimeError("no_healthy_provider", `no provider of ${tool}@${version} can take the call now`, {
    tool,
    version,
    retry_after_ms: retryAfter,
    providers: excluded.map((e) => ({ provider: e.offering.provider, reason: e.reason })),
  });
}

function capabilityDecision(
  d: Decision,
  level2: CapabilityDecision["level2"],
  level3: CapabilityDecision["level3"],
): CapabilityDecision {
  return { level1: { reachable: d.reachable.map((o) => o.provider) }, level2, level3 };
}
