/**
 * The lab provider: tools that misbehave on purpose, so that the runtime's error model can be
 * tried by hand (README) and is exercised end to end by the tests. Also the trivial `lab.echo`
 * the benchmark uses as its floor.
 */
import { defineTool, sleep, ToolError } from "../../../sdk/define.ts";
import { labDefaults } from "./defaults.ts";
import { labContext, labDelete, labWrite } from "./effects.ts";
import { labHeld, labHold, labRelease } from "./latch.ts";
import { labErase, labGauge, labWasErased } from "./waiting.ts";

const anyObject = { type: "object" } as const;

export const labEcho = defineTool({
  name: "lab.echo",
  version: "1.0.0",
  description: "Returns its input unchanged. The cheapest possible tool: the benchmark's floor.",
  input: anyObject,
  output: anyObject,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  tags: ["demo", "testing"],
  handler: (input: Record<string, unknown>) => input,
});

export const labBadOutput = defineTool({
  name: "lab.bad_output",
  version: "1.0.0",
  description: "Declares {value: number} and returns a string in it: the runtime must answer invalid_output.",
  input: { type: "object", additionalProperties: false, properties: {} },
  output: {
    type: "object",
    required: ["value"],
    additionalProperties: false,
    properties: { value: { type: "number" } },
  },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  // Failing is its job: its breaker must not open and hide the failure it demonstrates.
  breaker: { failures: 1_000_000 },
  handler: () => ({ value: "not a number" }),
});

export const labCrash = defineTool({
  name: "lab.crash",
  version: "1.0.0",
  description: "Throws an unexpected exception: the runtime must answer provider_crashed.",
  input: { type: "object", additionalProperties: false, properties: {} },
  output: anyObject,
  idempotent: false,
  latency_class: "fast",
  effects: "read",
  breaker: { failures: 1_000_000 },
  handler: () => {
    // A configuration that was never loaded: reading it throws the TypeError a real bug would.
    const config = JSON.parse("null") as { limit: number };
    return { limit: config.limit };
  },
});

export const labStall = defineTool({
  name: "lab.stall",
  version: "1.0.0",
  description: "Emits one partial result, waits `ms` ignoring cancellation and its budget, then logs once more.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["ms"],
    properties: { ms: { type: "integer", minimum: 0, maximum: 600000 } },
  },
  output: { type: "object", properties: { waited_ms: { type: "integer" } } },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  breaker: { failures: 1_000_000 },
  handler: async (input: { ms: number }, ctx) => {
    ctx.emit("partial", { stage: "before the wait" });
    // Deliberately not passing ctx.signal: this tool ignores cancellation.
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    // Arrives after a timeout or forced cancel: the runtime refuses it (tests check that).
    ctx.emit("log", { message: "after the wait" });
    return { waited_ms: input.ms };
  },
});

/**
 * `lab.route`, offered by three lab providers of different trust, answers with the name of
 * the provider that served it: ranking, liveness and the breaker become visible. `crash`
 * makes the handler throw, so a test can trip one provider's breaker on purpose. The short
 * breaker (3 failures, 3 s cooldown) keeps such tests quick.
 */
export function labRoute(servedBy: string) {
  return defineTool({
    name: "lab.route",
    version: "1.0.0",
    description: "Answers with the name of the provider that served the call; crash: true makes it throw.",
    input: { type: "object", additionalProperties: false, properties: { crash: { type: "boolean" } } },
    output: {
      type: "object",
      required: ["served_by"],
      additionalProperties: false,
      properties: { served_by: { type: "string" } },
    },
    idempotent: true,
    latency_class: "fast",
    effects: "read",
    breaker: { failures: 3, window_ms: 30_000, cooldown_ms: 3_000 },
    handler: (input: { crash?: boolean }) => {
      if (input.crash) throw new Error(`${servedBy} was asked to crash`);
      return { served_by: servedBy };
    },
  });
}

/**
 * Calls seen per key, in this isolate (enough under wrangler dev, where there is one). Bounded:
 * past MAX_FLAKY_KEYS the oldest key is forgotten, so callers cannot grow it without limit.
 */
const flakyCalls = new Map<string, number>();
const MAX_FLAKY_KEYS = 10_000;

/**
 * `lab.flaky` fails (crashes) its first `fail_times` calls for a key, then succeeds, and says
 * how many calls it has seen for the key: the retry engine and idempotency keys become
 * countable at the provider. Its breaker is set out of reach, since failing is its job.
 */
export const labFlaky = defineTool({
  name: "lab.flaky",
  version: "1.0.0",
  description: "Crashes on the first fail_times calls for a key (after delay_ms each), then answers {calls}.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["key"],
    properties: {
      key: { type: "string", maxLength: 200 },
      fail_times: { type: "integer", minimum: 0, maximum: 100, default: 0 },
      delay_ms: { type: "integer", minimum: 0, maximum: 60000, default: 0 },
    },
  },
  output: {
    type: "object",
    required: ["calls"],
    additionalProperties: false,
    properties: { calls: { type: "integer" } },
  },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  breaker: { failures: 1_000_000 },
  handler: async (input: { key: string; fail_times?: number; delay_ms?: number }, ctx) => {
    const calls = (flakyCalls.get(input.key) ?? 0) + 1;
    flakyCalls.delete(input.key); // re-inserted last: the map's order is the order of use
    flakyCalls.set(input.key, calls);
    if (flakyCalls.size > MAX_FLAKY_KEYS) flakyCalls.delete(flakyCalls.keys().next().value!);
    if (input.delay_ms) await sleep(input.delay_ms, ctx.signal);
    if (calls <= (input.fail_times ?? 0)) throw new Error(`lab.flaky: planned failure ${calls} of ${input.fail_times}`);
    return { calls };
  },
});

/**
 * `lab.burst` waits `wait_ms` (time for subscribers to attach), then emits `count` stdout
 * events `interval_ms` apart: the benchmark's fan-out source. `pad` adds that many characters
 * to each event, and `count` reaches past the runtime's event-log bounds (src/execution/event-log-limits.ts
 * MAX_EVENTS, MAX_LOG_BYTES), so the tests can watch a full log being cut off.
 */
export const labBurst = defineTool({
  name: "lab.burst",
  version: "1.0.0",
  description:
    "Waits wait_ms, then emits count stdout events interval_ms apart, each padded by pad characters; answers {emitted}.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["count"],
    properties: {
      count: { type: "integer", minimum: 0, maximum: 12000 },
      wait_ms: { type: "integer", minimum: 0, maximum: 60000, default: 0 },
      interval_ms: { type: "integer", minimum: 0, maximum: 10000, default: 0 },
      pad: { type: "integer", minimum: 0, maximum: 100000, default: 0 },
    },
  },
  output: { type: "object", required: ["emitted"], properties: { emitted: { type: "integer" } } },
  idempotent: true,
  latency_class: "slow",
  effects: "read",
  handler: async (input: { count: number; wait_ms?: number; interval_ms?: number; pad?: number }, ctx) => {
    if (input.wait_ms) await sleep(input.wait_ms, ctx.signal);
    const pad = input.pad ? "x".repeat(input.pad) : undefined;
    for (let i = 0; i < input.count; i++) {
      ctx.emit("stdout", pad === undefined ? { i } : { i, pad });
      if (input.interval_ms) await sleep(input.interval_ms, ctx.signal);
    }
    return { emitted: input.count };
  },
});

/**
 * `lab.reject` fails on request with an application error code (docs/contract.md#errors, `tool_error`),
 * declared in its manifest; `undeclared: true` uses a code it never declared, which still
 * reaches the caller while the SDK logs a warning.
 */
export const labReject = defineTool({
  name: "lab.reject",
  version: "1.0.0",
  description:
    "Fails with tool_error and the given code (quota_exhausted or not_ready); undeclared: true uses an undeclared one.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["code"],
    properties: {
      code: { type: "string", enum: ["quota_exhausted", "not_ready"] },
      retryable: { type: "boolean", default: false },
      undeclared: { type: "boolean", default: false },
    },
  },
  output: anyObject,
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  breaker: { failures: 1_000_000 },
  error_codes: [
    { code: "quota_exhausted", description: "The caller's quota for today is used up." },
    { code: "not_ready", description: "The resource is still being prepared; try again later." },
  ],
  handler: (input: { code: "quota_exhausted" | "not_ready"; retryable?: boolean; undeclared?: boolean }) => {
    const code = input.undeclared ? "surprise" : input.code;
    throw new ToolError(`lab.reject was asked to fail with ${code}`, {
      code,
      retryable: input.retryable ?? false,
      details: { asked: input.code },
    });
  },
});

/**
 * `lab.items` streams `count` items as append-partials (partial_merge "append", docs/contract.md#partial-output):
 * each partial event carries the new items only, and the runtime's partial output is the
 * list so far, so a cancelled call keeps every item it produced.
 */
export const labItems = defineTool({
  name: "lab.items",
  version: "1.0.0",
  description: "Emits count items, batch per partial event (appended), interval_ms apart; answers {items}.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["count"],
    properties: {
      count: { type: "integer", minimum: 0, maximum: 1000 },
      batch: { type: "integer", minimum: 1, maximum: 100, default: 1 },
      interval_ms: { type: "integer", minimum: 0, maximum: 60000, default: 0 },
    },
  },
  output: {
    type: "object",
    required: ["items"],
    additionalProperties: false,
    properties: {
      items: { type: "array", items: { type: "object", required: ["n"], properties: { n: { type: "integer" } } } },
    },
  },
  idempotent: true,
  latency_class: "slow",
  effects: "read",
  partial_merge: "append",
  handler: async (input: { count: number; batch?: number; interval_ms?: number }, ctx) => {
    const batch = input.batch ?? 1;
    const items: { n: number }[] = [];
    for (let start = 0; start < input.count; start += batch) {
      const fresh = Array.from({ length: Math.min(batch, input.count - start) }, (_, i) => ({ n: start + i + 1 }));
      items.push(...fresh);
      ctx.emit("partial", fresh);
      if (input.interval_ms) await sleep(input.interval_ms, ctx.signal);
    }
    return { items };
  },
});

/**
 * `lab.spin` burns CPU on purpose: `rounds` steps of integer mixing (about a second per 10^9
 * on current hardware). Deployed with `"limits": { "cpu_ms": 1000 }`, a few billion rounds end as
 * the runtime's resource_exceeded; under wrangler dev, which enforces no CPU limit, they
 * finish. Counted in rounds, not milliseconds: a Worker's clock stands still while it
 * computes, so a loop on Date.now() would never end in production.
 */
export const labSpin = defineTool({
  name: "lab.spin",
  version: "1.0.0",
  description: "Spends CPU for `rounds` steps (up to 5·10^9, a few seconds), then answers {rounds, digest}.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["rounds"],
    properties: { rounds: { type: "integer", minimum: 0, maximum: 5_000_000_000 } },
  },
  output: {
    type: "object",
    required: ["rounds", "digest"],
    additionalProperties: false,
    properties: { rounds: { type: "integer" }, digest: { type: "integer" } },
  },
  idempotent: true,
  latency_class: "slow",
  effects: "read",
  breaker: { failures: 1_000_000 },
  handler: (input: { rounds: number }) => {
    let x = 0x9e3779b9;
    for (let i = 0; i < input.rounds; i++) x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + i;
    return { rounds: input.rounds, digest: x >>> 0 };
  },
});

/**
 * `lab.long` is a long-running tool with a short breaker (2 failures in 30 s, 2 s cooldown):
 * it says it has started at once (a `progress` event), then works for `ms`; `crash: true`
 * makes it throw at once. With it a test sees a half-open breaker's trial decided by the
 * provider's first sign of life, not by the end of a long run (docs/contract.md#circuit-breakers).
 */
export const labLong = defineTool({
  name: "lab.long",
  version: "1.0.0",
  description: "Long-running: reports progress at once, then works for ms; crash: true makes it throw at once.",
  input: {
    type: "object",
    additionalProperties: false,
    properties: {
      ms: { type: "integer", minimum: 0, maximum: 600_000, default: 5_000 },
      crash: { type: "boolean", default: false },
    },
  },
  output: {
    type: "object",
    required: ["worked_ms"],
    additionalProperties: false,
    properties: { worked_ms: { type: "integer" } },
  },
  idempotent: false,
  latency_class: "long_running",
  effects: "read",
  breaker: { failures: 2, window_ms: 30_000, cooldown_ms: 2_000 },
  handler: async (input: { ms?: number; crash?: boolean }, ctx) => {
    if (input.crash) throw new Error("lab.long was asked to crash");
    ctx.emit("progress", { percent: 0, stage: "started" });
    const ms = input.ms ?? 5_000;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      ctx.signal.addEventListener("abort", () => (clearTimeout(timer), resolve()));
    });
    return { worked_ms: ms };
  },
});

export const labTools = [
  labEcho,
  labBadOutput,
  labCrash,
  labStall,
  labRoute("lab"),
  labFlaky,
  labBurst,
  labReject,
  labItems,
  labSpin,
  labLong,
  labDefaults,
  labWrite,
  labDelete,
  labContext,
  labGauge,
  labErase,
  labWasErased,
  labHold,
  labRelease,
  labHeld,
];
