/**
 * The wire protocol between the runtime and a provider Worker (Workers RPC over a service
 * binding). Both sides import these types; nothing here touches a platform API, so the
 * schema build step can load it under plain Node.
 *
 * docs/contract.md#provider-execution: a provider exports a WorkerEntrypoint with `manifest()` and
 * `invoke(call, sink)`. Cancellation travels over the same call through `sink.cancelled()`.
 */

/**
 * Any value a tool takes or gives: JSON, or bytes where MessagePack carries them. The same set
 * of values as `unknown`, spelled so that Workers RPC's types accept it: a typed stub of a
 * Durable Object class refuses any method whose result holds `unknown`.
 */
export type Value = {} | null | undefined;

/** A JSON Schema document (draft 2020-12 subset that ajv compiles). */
export type JsonSchema = { [key: string]: Value } | boolean;

/** The latency class sets the default timeout (docs/contract.md#timeouts). */
export type LatencyClass = "instant" | "fast" | "slow" | "long_running";

/** The strongest effect a tool has; write, delete and send are the destructive ones (docs/contract.md#capabilities). */
export type Effect = "read" | "write" | "delete" | "send";

/** Strict (no coercion) is the default; lenient is opt-in per tool. */
export type CoercionMode = "strict" | "lenient";

/**
 * How the runtime folds a tool's `partial` events into the execution's partial output
 * (docs/contract.md#partial-output: what a cancelled or timed-out execution keeps):
 *   replace  each partial event is the whole partial output so far (the default)
 *   append   each partial event's data is a JSON array whose items are appended, or a string
 *            that is concatenated; one execution keeps to one of the two
 */
export type PartialMerge = "replace" | "append";

/** An application error code a tool may report with `tool_error` (docs/contract.md#errors). */
export interface ToolErrorCode {
  /** Lowercase snake case, at most 64 characters: TOOL_ERROR_CODE. */
  code: string;
  description: string;
}

/** What a tool's own error code looks like. */
export const TOOL_ERROR_CODE = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * What a tool's tag looks like: a lowercase slug of 1 to 32 characters (letters, digits, '.',
 * '_', '-'), starting and ending with a letter or digit, so that it reads the same in a URL,
 * a bundle and a log line. A tool has at most TOOL_TAGS_MAX, none twice.
 */
export const TOOL_TAG = /^[a-z0-9](?:[a-z0-9._-]{0,30}[a-z0-9])?$/;
export const TOOL_TAGS_MAX = 16;

/**
 * What is wrong with a manifest entry's `tags`, or undefined when nothing is (absent is fine).
 * Pure, for both sides: the SDK refuses a bad declaration at build, the registry leaves out an
 * offering whose manifest has one (src/registry/catalog.ts).
 */
export function tagsProblem(tags: unknown): string | undefined {
  if (tags === undefined) return undefined;
  if (!Array.isArray(tags) || tags.length > TOOL_TAGS_MAX)
    return `tags must be a list of at most ${TOOL_TAGS_MAX} tags`;
  const seen = new Set<string>();
  for (const tag of tags) {
    if (typeof tag !== "string" || !TOOL_TAG.test(tag)) return `tag ${JSON.stringify(tag)} does not match ${TOOL_TAG}`;
    if (seen.has(tag)) return `tag ${tag} is listed twice`;
    seen.add(tag);
  }
  return undefined;
}

/** One tool as a provider declares it in its manifest. */
export interface ToolManifestEntry {
  name: string;
  version: string;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  /**
   * The capability a caller must hold (docs/contract.md#capabilities level 3), or null for pure tools.
   * `{field.host}` is replaced by the host of the URL in that input field, so
   * `network:{url.host}` asks for `network:api.example.com` when `input.url` points there.
   */
  capability_required: string | null;
  idempotent: boolean;
  latency_class: LatencyClass;
  effects: Effect;
  coercion: CoercionMode;
  /** Largest timeout a caller may ask for; defaults to the system maximum. */
  max_timeout_ms?: number;
  /** The circuit breaker for this tool (docs/contract.md#circuit-breakers); the runtime's defaults fill what is left out. */
  breaker?: { failures?: number; window_ms?: number; cooldown_ms?: number };
  /** The codes its `tool_error`s may carry; a code outside this list still passes (SDK warns). */
  error_codes?: ToolErrorCode[];
  /** Absent means "replace" (manifests from SDKs before 1.1). */
  partial_merge?: PartialMerge;
  /**
   * What the tool is about, for finding it and for bundles that select by tag
   * (docs/contract.md#bundles): at most 16 TOOL_TAG slugs, none twice. Absent: none.
   */
  tags?: string[];
}

export interface ProviderManifest {
  /** The provider's own name for itself; informational (trust comes from deploy config). */
  provider: string;
  sdk_version: string;
  tools: ToolManifestEntry[];
  /**
   * The most calls the provider takes at once, across all its tools (docs/contract.md#waiting): the runtime
   * never has more in flight here, and a call that finds it full waits in `scheduled` or goes
   * to another provider with room. Per provider, not per tool, because what runs out is the
   * provider's own: its Worker's CPU, an upstream API's quota, a licence. Absent: no limit.
   * Operators may override it (PATCH /v1/admin/providers/{name}).
   */
  max_concurrency?: number;
}

/** Who is calling, as the runtime established it (never taken from the caller's body). */
export interface CallerIdentity {
  tenant: string;
  agent: string;
}

/** The call a provider receives (docs/contract.md#dispatch), in the shape Workers RPC carries. */
export interface ToolCall {
  execution_id: string;
  tool: string;
  version: string;
  input: Value;
  caller: CallerIdentity;
  context: Record<string, Value>;
  /** Remaining budget after pipeline overhead (docs/contract.md#budgets). */
  remaining_timeout_ms: number;
  /** W3C Trace Context of the runtime's span for this attempt. */
  traceparent?: string;
  /** Which attempt of the execution this is (1, 2, …; docs/contract.md#retries). */
  attempt?: number;
  /**
   * This attempt's CPU-report nonce, which the provider logs back in its invocation line
   * (InvocationLogLine.nonce): the runtime believes a report of CPU time only with it.
   */
  report_nonce?: string;
}

/**
 * The one line a provider logs per invocation (`console.log` of this object as JSON), before
 * anything else: the platform's report of an invocation (a Tail Worker event) carries the RPC
 * method and the invocation's logs and CPU time, but not its arguments, so this line is how
 * the runtime knows which execution and attempt that CPU time belongs to.
 */
export interface InvocationLogLine {
  msg: typeof INVOCATION_LOG;
  execution_id: string;
  attempt: number | null;
  /** ToolCall.report_nonce, as the runtime sent it (absent when it sent none). */
  nonce?: string;
}

export const INVOCATION_LOG = "trt.invocation";

/** Event kinds a tool may emit while it runs (docs/contract.md#streaming, the non-terminal ones). */
export type EmittedEventType = "stdout" | "stderr" | "progress" | "partial" | "log";

export interface EmittedEvent {
  type: EmittedEventType;
  data: Value;
}

/** Why the runtime asked the provider to stop. */
export interface StopSignal {
  reason: "cancelled" | "timeout";
}

/**
 * The runtime has settled the attempt (it has the answer, or gave up on it): nothing to stop.
 * Answering a `stopped()` call that is still waiting lets the provider's invocation end; until
 * then it stays open, and the platform reports an invocation (its CPU time) only once it ends.
 */
export interface AttemptSettled {
  reason: "settled";
}

/**
 * The execution object's side of a call, passed to the provider as an RpcTarget.
 * `stopped()` resolves when the runtime wants the handler to stop, or with `settled` once the
 * attempt is over (a provider built before SDK 1.2 may take that for a stop: harmless, its
 * handler has already returned).
 */
export interface ExecutionSink {
  emit(event: EmittedEvent): Promise<void>;
  stopped(): Promise<StopSignal | AttemptSettled>;
}

/** Error codes a provider may report; everything else is the runtime's to decide. */
export type ProviderErrorCode = "tool_error" | "provider_crashed" | "tool_not_found" | "cancelled";

export interface ProviderError {
  code: ProviderErrorCode;
  /**
   * For the caller. Never an exception's text: a crash answers "the handler failed (ref …)"
   * and the full text goes to the provider's log under that ref.
   */
  message: string;
  retryable?: boolean;
  /** Only with `tool_error`: the tool's own code (docs/contract.md#errors, `details.tool_code`). */
  tool_code?: string;
  /** With `tool_error`, what the tool chose to add; with `provider_crashed`, `{ ref }`. */
  details?: Record<string, Value>;
}

/** A provider's answer (docs/contract.md#provider-execution); latency is the handler's own time in microseconds. */
export type InvokeResult =
  { ok: true; output: Value; latency_us: number } | { ok: false; error: ProviderError; latency_us: number };

/** What a provider Worker offers over Workers RPC (docs/contract.md#provider-execution); the runtime reaches it by a configured binding name. */
export interface ProviderService {
  manifest(): Promise<ProviderManifest>;
  invoke(call: ToolCall, sink: ExecutionSink): Promise<InvokeResult>;
}

export const LATENCY_CLASSES: readonly LatencyClass[] = ["instant", "fast", "slow", "long_running"];
export const EFFECTS: readonly Effect[] = ["read", "write", "delete", "send"];
export const PARTIAL_MERGES: readonly PartialMerge[] = ["replace", "append"];
export const EMITTED_EVENT_TYPES: readonly EmittedEventType[] = ["stdout", "stderr", "progress", "partial", "log"];
