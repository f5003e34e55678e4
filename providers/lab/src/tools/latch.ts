/**
 * A latch the caller controls: `lab.hold` runs until `lab.release` names its latch, so a test
 * decides when a running call ends instead of racing a timer. The latch lives in this
 * provider's isolate, as lab.flaky's counts do (under wrangler dev and in workerd tests there
 * is one); `lab.hold` looks at it every POLL_MS rather than being woken by the other request,
 * because one request may not settle a promise another request is waiting on.
 */
import { defineTool, sleep } from "../../../sdk/define.ts";

const POLL_MS = 20;
/** Latches released (open for every holder, now and later); past this many the oldest is forgotten. */
const MAX_RELEASED = 10_000;
const released = new Set<string>();

const latchName = { type: "string", minLength: 1, maxLength: 200 } as const;

/**
 * `lab.hold` reports that it is holding (a `partial` event), then waits until its latch is
 * released or `max_ms` has passed; released, it logs once more before it returns. It ignores
 * cancellation unless `heed_cancel` is set: a handler the runtime cannot stop, whose end the
 * test still decides. `report_stop` makes it log the stop notice it ignores, so a test can see
 * that a cancel has reached it.
 */
export const labHold = defineTool({
  name: "lab.hold",
  version: "1.0.0",
  description:
    "Emits a partial, then waits until lab.release names its latch (or max_ms passes) and logs; ignores cancellation unless heed_cancel.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["latch"],
    properties: {
      latch: latchName,
      max_ms: { type: "integer", minimum: 0, maximum: 600_000, default: 60_000 },
      heed_cancel: { type: "boolean", default: false },
      report_stop: { type: "boolean", default: false },
    },
  },
  output: {
    type: "object",
    required: ["released"],
    additionalProperties: false,
    properties: { released: { type: "boolean" } },
  },
  idempotent: false,
  latency_class: "slow",
  effects: "read",
  // Being held past its budget is its job, not the provider failing.
  breaker: { failures: 1_000_000 },
  handler: async (
    input: { latch: string; max_ms?: number; heed_cancel?: boolean; report_stop?: boolean },
    ctx,
  ) => {
    ctx.emit("partial", { holding: input.latch });
    if (input.report_stop && !input.heed_cancel)
      ctx.signal.addEventListener("abort", () => ctx.emit("log", { message: "stop notice ignored" }), { once: true });
    const until = Date.now() + (input.max_ms ?? 60_000);
    while (!released.has(input.latch) && Date.now() < until)
      await sleep(POLL_MS, input.heed_cancel ? ctx.signal : undefined);
    const done = released.has(input.latch);
    if (done) ctx.emit("log", { message: "released" });
    return { released: done };
  },
});

/** `lab.release` opens a latch: the `lab.hold` calls waiting on it return. It touches nothing but the lab's latch. */
export const labRelease = defineTool({
  name: "lab.release",
  version: "1.0.0",
  description: "Releases the latch that lab.hold calls wait on; answers {released}.",
  input: { type: "object", additionalProperties: false, required: ["latch"], properties: { latch: latchName } },
  output: {
    type: "object",
    required: ["released"],
    additionalProperties: false,
    properties: { released: { type: "string" } },
  },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  handler: (input: { latch: string }) => {
    released.add(input.latch);
    if (released.size > MAX_RELEASED) released.delete(released.values().next().value!);
    return { released: input.latch };
  },
});
