/** Lab tools for executions that wait (docs/contract.md#approvals): a provider's concurrency, and a tool worth approving. */
import { defineTool, sleep } from "../../../sdk/define.ts";

/**
 * `lab.gauge` counts the calls it is running at once (in this provider's isolate) and answers
 * how many were running when it started, with the most it has ever seen: with the provider's
 * max_concurrency at 1, both must always be 1 (docs/contract.md#waiting).
 */
let gaugeInFlight = 0;
let gaugeMost = 0;
export const labGauge = defineTool({
  name: "lab.gauge",
  version: "1.0.0",
  description: "Holds for ms and answers how many of its calls ran at once: {in_flight_at_start, most_ever}.",
  input: {
    type: "object",
    additionalProperties: false,
    properties: {
      ms: { type: "integer", minimum: 0, maximum: 60_000, default: 50 },
      reset: { type: "boolean", default: false },
    },
  },
  output: {
    type: "object",
    required: ["in_flight_at_start", "most_ever"],
    additionalProperties: false,
    properties: { in_flight_at_start: { type: "integer" }, most_ever: { type: "integer" } },
  },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  handler: async (input: { ms?: number; reset?: boolean }, ctx) => {
    if (input.reset) gaugeMost = 0;
    const atStart = ++gaugeInFlight;
    gaugeMost = Math.max(gaugeMost, atStart);
    try {
      await sleep(input.ms ?? 50, ctx.signal);
      return { in_flight_at_start: atStart, most_ever: gaugeMost };
    } finally {
      gaugeInFlight--;
    }
  },
});

/**
 * `lab.erase` stands for a destructive tool (effects `delete`): a tenant's policy may hold it
 * for a person's approval (docs/contract.md#approvals). It remembers what it erased, so `lab.was_erased` can
 * tell whether it ever ran for a name — rejected, expired and cancelled calls never do.
 */
const erased = new Set<string>();
export const labErase = defineTool({
  name: "lab.erase",
  version: "1.0.0",
  description: "Pretends to delete the thing called name (effects delete); remembers that it did.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["name"],
    properties: { name: { type: "string", minLength: 1, maxLength: 200 } },
  },
  output: {
    type: "object",
    required: ["erased"],
    additionalProperties: false,
    properties: { erased: { type: "string" } },
  },
  idempotent: false,
  latency_class: "fast",
  effects: "delete",
  handler: (input: { name: string }) => {
    if (erased.size > 10_000) erased.clear();
    erased.add(input.name);
    return { erased: input.name };
  },
});

export const labWasErased = defineTool({
  name: "lab.was_erased",
  version: "1.0.0",
  description: "Whether lab.erase ever ran for this name (in this provider's isolate).",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["name"],
    properties: { name: { type: "string", minLength: 1, maxLength: 200 } },
  },
  output: {
    type: "object",
    required: ["erased"],
    additionalProperties: false,
    properties: { erased: { type: "boolean" } },
  },
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  handler: (input: { name: string }) => ({ erased: erased.has(input.name) }),
});
