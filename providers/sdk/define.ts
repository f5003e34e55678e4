/**
 * Declaring tools. Pure: no platform import, so `scripts/build-schemas.ts` can load every
 * provider's tool list under Node and compile its schemas ahead of time (Workers refuse code generation at run time: docs/contract.md#validation).
 */
import {
  EFFECTS,
  LATENCY_CLASSES,
  PARTIAL_MERGES,
  tagsProblem,
  TOOL_ERROR_CODE,
  type CallerIdentity,
  type CoercionMode,
  type Effect,
  type EmittedEventType,
  type JsonSchema,
  type LatencyClass,
  type PartialMerge,
  type ToolErrorCode,
  type ToolManifestEntry,
} from "./protocol.ts";

/** What a handler gets besides its input. */
export interface ToolContext {
  /**
   * Sends an event to every subscriber of the execution (stored before it is sent). With
   * `partial_merge: "append"`, a `partial` event's data must be an array or a string (and the
   * same one of the two all through the call); anything else throws here.
   */
  emit(type: EmittedEventType, data: unknown): void;
  /** Aborted when the caller cancels or the time budget runs out. */
  signal: AbortSignal;
  /** Milliseconds left of the call's budget, never below zero. */
  remainingMs(): number;
  caller: CallerIdentity;
  executionId: string;
  context: Record<string, unknown>;
  /** W3C `traceparent` to continue the caller's trace in anything the tool calls. */
  traceparent?: string;
}

export type ToolHandler<I, O> = (input: I, ctx: ToolContext) => O | Promise<O>;

export interface ToolSpec<I = any, O = any> {
  name: string;
  version: string;
  description: string;
  input: JsonSchema;
  output: JsonSchema;
  capability_required?: string | null;
  idempotent: boolean;
  latency_class: LatencyClass;
  effects: Effect;
  coercion?: CoercionMode;
  max_timeout_ms?: number;
  /** N failures in window_ms open the breaker for cooldown_ms (defaults 5, 30 s, 30 s). */
  breaker?: { failures?: number; window_ms?: number; cooldown_ms?: number };
  /** The codes the tool's ToolErrors may carry, each with what it means to a caller. */
  error_codes?: ToolErrorCode[];
  /** How `partial` events add up (default "replace"); see PartialMerge. */
  partial_merge?: PartialMerge;
  /** What the tool is about (`["maths"]`): at most 16 lowercase slugs, none twice; bundles can select by them. */
  tags?: string[];
  handler: ToolHandler<I, O>;
}

export interface ToolDefinition<I = any, O = any> {
  manifest: ToolManifestEntry;
  handler: ToolHandler<I, O>;
}

export interface ToolErrorOptions {
  /** The tool's own code for this failure (docs/contract.md#errors, `details.tool_code`); declare it in `error_codes`. */
  code?: string;
  retryable?: boolean;
  details?: Record<string, unknown>;
}

/**
 * A failure the tool means to report (bad upstream answer, refused target...). It reaches
 * the caller as `tool_error` (422) with this message, its `code` as `tool_code` and its
 * `details`; `retryable` says whether trying again may help. Any other exception is a crash
 * of the provider, and its text stays in the provider's log.
 *
 *   throw new ToolError("division by zero at position 4", { code: "division_by_zero", details: { position: 4 } });
 */
export class ToolError extends Error {
  readonly code?: string;
  readonly retryable: boolean;
  readonly details?: Record<string, unknown>;
  constructor(message: string, options: ToolErrorOptions = {}) {
    super(message);
    // A malformed code is the tool author's bug: fail where it is written, not at the caller.
    if (options.code !== undefined && !TOOL_ERROR_CODE.test(options.code)) {
      throw new TypeError(`ToolError code ${JSON.stringify(options.code)} does not match ${TOOL_ERROR_CODE}`);
    }
    this.name = "ToolError";
    this.code = options.code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

const TOOL_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
// semver 2.0.0, without build metadata (it does not order versions).
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;

/** Declares a tool; a malformed declaration fails at load (and so at build), not per call. */
export function defineTool<I = any, O = any>(spec: ToolSpec<I, O>): ToolDefinition<I, O> {
  const where = `tool ${JSON.stringify(spec.name)}`;
  if (!TOOL_NAME.test(spec.name)) throw new Error(`${where}: name must be dotted lowercase words`);
  if (!SEMVER.test(spec.version)) throw new Error(`${where}: version ${spec.version} is not semver`);
  if (!LATENCY_CLASSES.includes(spec.latency_class))
    throw new Error(`${where}: unknown latency_class ${spec.latency_class}`);
  if (!EFFECTS.includes(spec.effects)) throw new Error(`${where}: unknown effects ${spec.effects}`);
  if (typeof spec.handler !== "function") throw new Error(`${where}: handler must be a function`);
  if (spec.partial_merge !== undefined && !PARTIAL_MERGES.includes(spec.partial_merge)) {
    throw new Error(`${where}: partial_merge must be one of ${PARTIAL_MERGES.join(", ")}`);
  }
  checkErrorCodes(where, spec.error_codes);
  const badTags = tagsProblem(spec.tags);
  if (badTags) throw new Error(`${where}: ${badTags}`);
  return {
    manifest: {
      name: spec.name,
      version: spec.version,
      description: spec.description,
      input_schema: spec.input,
      output_schema: spec.output,
      capability_required: spec.capability_required ?? null,
      idempotent: spec.idempotent,
      latency_class: spec.latency_class,
      effects: spec.effects,
      coercion: spec.coercion ?? "strict",
      ...(spec.max_timeout_ms !== undefined ? { max_timeout_ms: spec.max_timeout_ms } : {}),
      ...(spec.breaker !== undefined ? { breaker: spec.breaker } : {}),
      ...(spec.error_codes !== undefined
        ? { error_codes: spec.error_codes.map(({ code, description }) => ({ code, description })) }
        : {}),
      partial_merge: spec.partial_merge ?? "replace",
      ...(spec.tags !== undefined ? { tags: [...spec.tags] } : {}),
    },
    handler: spec.handler,
  };
}

function checkErrorCodes(where: string, codes: ToolErrorCode[] | undefined): void {
  if (codes === undefined) return;
  if (!Array.isArray(codes)) throw new Error(`${where}: error_codes must be a list`);
  const seen = new Set<string>();
  for (const entry of codes) {
    if (typeof entry?.code !== "string" || !TOOL_ERROR_CODE.test(entry.code)) {
      throw new Error(`${where}: error code ${JSON.stringify(entry?.code)} does not match ${TOOL_ERROR_CODE}`);
    }
    if (seen.has(entry.code)) throw new Error(`${where}: error code ${entry.code} is declared twice`);
    if (typeof entry.description !== "string" || entry.description.trim() === "") {
      throw new Error(`${where}: error code ${entry.code} needs a description`);
    }
    seen.add(entry.code);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
