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
/** Latches whose holder has had its stop notice (a cancel, a timeout), bounded the same way. */
const stopNoticed = new Set<string>();
/** How many times holders of each latch have looked at it, and the latches a holder returned from once released; bounded the same way. */
const polls = new Map<string, number>();
const returned = new Set<string>();

function remember(set: Set<string>, latch: string): void {
  set.add(latch);
  if (set.size > MAX_RELEASED) set.delete(set.values().next().value!);
}

function countPoll(latch: string): void {
  polls.set(latch, (polls.get(latch) ?? 0) + 1);
  if (polls.size > MAX_RELEASED) polls.delete(polls.keys().next().value!);
}

const latchName = { type: "string", minLength: 1, maxLength: 200 } as const;

/**
 * `lab.hold` reports that it is holding (a `partial` event), then waits until its latch is
 * released or `max_ms` has passed; released, it logs once more before it returns. It ignores
 * cancellation unless `heed_cancel` is set: a handler the runtime cannot stop, whose end the
 * test still decides. A stop notice it gets is remembered for its latch, so that
 * `lab.release` with `after_stop` can wait for it (the runtime keeps no event a stopped
 * handler sends, so the notice is seen here or nowhere). What it does after it has been abandoned
 * is seen here too, by `lab.held`. With `tick_ms` it emits a `stdout`
 * event that often while it holds: a stream that is never quiet (a reader that has gone is
 * noticed when a write to it fails).
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
      tick_ms: { type: "integer", minimum: 20, maximum: 60_000 },
    },
  },
  output: {
    type: "object",
    required: ["released"],
    additionalProperties: false,
    properties: { released: { type: "boolean" } },
  },
  // Running it twice changes nothing: a caller may retry it safely.
  idempotent: true,
  latency_class: "slow",
  effects: "read",
  // Being held past its budget is its job, not the provider failing.
  breaker: { failures: 1_000_000 },
  handler: async (input: { latch: string; max_ms?: number; heed_cancel?: boolean; tick_ms?: number }, ctx) => {
    ctx.emit("partial", { holding: input.latch });
    ctx.signal.addEventListener("abort", () => remember(stopNoticed, input.latch), { once: true });
    const until = Date.now() + (input.max_ms ?? 60_000);
    let ticks = 0;
    let nextTick = input.tick_ms === undefined ? Infinity : Date.now() + input.tick_ms;
    while (!released.has(input.latch) && Date.now() < until) {
      countPoll(input.latch);
      await sleep(POLL_MS, input.heed_cancel ? ctx.signal : undefined);
      if (Date.now() >= nextTick) {
        ctx.emit("stdout", { tick: ++ticks });
        nextTick = Date.now() + input.tick_ms!;
      }
    }
    const done = released.has(input.latch);
    if (done) {
      remember(returned, input.latch);
      ctx.emit("log", { message: "released" });
    }
    return { released: done };
  },
});

/**
 * `lab.release` opens a latch: the `lab.hold` calls waiting on it return. With `after_stop` it
 * first waits (up to `max_ms`) until a holder of the latch has had its stop notice, so a test
 * can release a handler inside the grace period of a cancel it has sent. It touches nothing
 * but the lab's latches.
 */
export const labRelease = defineTool({
  name: "lab.release",
  version: "1.0.0",
  description:
    "Releases the latch that lab.hold calls wait on (after_stop: once a holder has had its stop notice); answers {released}.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["latch"],
    properties: {
      latch: latchName,
      after_stop: { type: "boolean", default: false },
      max_ms: { type: "integer", minimum: 0, maximum: 60_000, default: 20_000 },
    },
  },
  output: {
    type: "object",
    required: ["released"],
    additionalProperties: false,
    properties: { released: { type: "string" } },
  },
  idempotent: true,
  latency_class: "fast",
  effects: "read",
  // It fails only when asked to wait for a notice that never came: that says nothing about the provider.
  breaker: { failures: 1_000_000 },
  handler: async (input: { latch: string; after_stop?: boolean; max_ms?: number }) => {
    if (input.after_stop) {
      const until = Date.now() + (input.max_ms ?? 20_000);
      while (!stopNoticed.has(input.latch) && Date.now() < until) await sleep(POLL_MS);
      if (!stopNoticed.has(input.latch)) throw new Error(`no holder of ${input.latch} had a stop notice`);
    }
    remember(released, input.latch);
    return { released: input.latch };
  },
});

/**
 * `lab.held` says what the holders of a latch have done, as seen in the lab's isolate: how many
 * times they have looked at it (about every 20 ms while one runs) and whether one returned once
 * released. A holder whose invocation has ended does neither (docs/contract.md#cancellation).
 */
export const labHeld = defineTool({
  name: "lab.held",
  version: "1.0.0",
  description: "How many times lab.hold calls on a latch have looked at it, and whether one returned once released.",
  input: {
    type: "object",
    additionalProperties: false,
    required: ["latch"],
    properties: { latch: latchName },
  },
  output: {
    type: "object",
    required: ["polls", "returned"],
    additionalProperties: false,
    properties: { polls: { type: "integer" }, returned: { type: "boolean" } },
  },
  idempotent: true,
  latency_class: "instant",
  effects: "read",
  handler: (input: { latch: string }) => ({ polls: polls.get(input.latch) ?? 0, returned: returned.has(input.latch) }),
});
