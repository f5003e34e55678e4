/**
 * The lab provider: tools that misbehave on purpose, so that the runtime's error model can be
 * tried by hand (README) and is exercised end to end by the tests. Also the trivial `lab.echo`
 * the benchmark uses as its floor.
 */
import { defineTool, sleep } from "../../../sdk/define.ts";

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
  handler: (input: Record<string, unknown>) => input,
});

export const labBadOutput = defineTool({
  name: "lab.bad_output",
  version: "1.0.0",
  description: "Declares {value: number} and returns a string in it: the runtime must answer invalid_output.",
  input: { type: "object", additionalProperties: false, properties: {} },
  output: { type: "object", required: ["value"], additionalProperties: false, properties: { value: { type: "number" } } },
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
    const config = undefined as unknown as { limit: number };
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
    output: { type: "object", required: ["served_by"], additionalProperties: false, properties: { served_by: { type: "string" } } },
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

/** Calls seen per key, in this isolate (enough under wrangler dev, where there is one). */
const flakyCalls = new Map<string, number>();

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
  output: { type: "object", required: ["calls"], additionalProperties: false, properties: { calls: { type: "integer" } } },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  breaker: { failures: 1_000_000 },
  handler: async (input: { key: string; fail_times?: number; delay_ms?: number }, ctx) => {
    const calls = (flakyCalls.get(input.key) ?? 0) + 1;
    flakyCalls.set(input.key, calls);
    if (input.delay_ms) await sleep(input.delay_ms, ctx.signal);
    if (calls <= (input.fail_times ?? 0)) throw new Error(`lab.flaky: planned failure ${calls} of ${input.fail_times}`);
    return { calls };
  },
});

/**
 * `lab.burst` waits `wait_ms` (time for subscribers to attach), then emits `count` stdout
 * events `interval_ms` apart: the benchmark's fan-out source.
 */
export const labBurst = defineTool({
  name: "lab.burst",
  version: "1.0.0",
  description: "Waits wait_ms, then emits count stdout events interval_ms apart; answers {emitted}.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["count"],
    properties: {
      count: { type: "integer", minimum: 0, maximum: 5000 },
      wait_ms: { type: "integer", minimum: 0, maximum: 60000, default: 0 },
      interval_ms: { type: "integer", minimum: 0, maximum: 10000, default: 0 },
    },
  },
  output: { type: "object", required: ["emitted"], properties: { emitted: { type: "integer" } } },
  idempotent: true,
  latency_class: "slow",
  effects: "read",
  handler: async (input: { count: number; wait_ms?: number; interval_ms?: number }, ctx) => {
    if (input.wait_ms) await sleep(input.wait_ms, ctx.signal);
    for (let i = 0; i < input.count; i++) {
      ctx.emit("stdout", { i });
      if (input.interval_ms) await sleep(input.interval_ms, ctx.signal);
    }
    return { emitted: input.count };
  },
});

export const labTools = [labEcho, labBadOutput, labCrash, labStall, labRoute("lab"), labFlaky, labBurst];
