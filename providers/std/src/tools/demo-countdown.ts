/**
 * `demo.countdown`: a long-running tool that shows the event stream at work (progress,
 * partial results, stdout) and stops promptly when cancelled.
 */
import { defineTool, sleep } from "../../../sdk/define.ts";

interface CountdownInput {
  from: number;
  interval_ms?: number;
}

export const demoCountdown = defineTool<CountdownInput, { counted: number[]; finished: true }>({
  name: "demo.countdown",
  version: "1.0.0",
  description:
    "Counts down from `from` to 1, one number every interval_ms, emitting progress, partial and stdout events.",
  input: {
    type: "object",
    properties: {
      from: { type: "integer", minimum: 0, maximum: 1000 },
      interval_ms: { type: "integer", minimum: 0, maximum: 60_000, default: 1000 },
    },
    required: ["from"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      counted: { type: "array", items: { type: "integer" } },
      finished: { type: "boolean", const: true },
    },
    required: ["counted", "finished"],
    additionalProperties: false,
  },
  capability_required: null,
  idempotent: true,
  latency_class: "long_running",
  effects: "read",
  tags: ["demo", "streaming"],
  coercion: "strict",
  handler: async ({ from, interval_ms = 1000 }, ctx) => {
    const counted: number[] = [];
    for (let n = from; n >= 1; n--) {
      counted.push(n);
      ctx.emit("progress", { percent: Math.round((counted.length / from) * 100), remaining: n });
      // A copy: events are delivered later, after `counted` has grown.
      ctx.emit("partial", { counted: [...counted] });
      ctx.emit("stdout", `${n}\n`);
      // The abort rejection propagates on purpose; the SDK reports it as cancelled.
      await sleep(interval_ms, ctx.signal);
    }
    return { counted, finished: true };
  },
});
