/**
 * What workerd does with a provider call its caller abandons — the question behind a forced
 * cancel (docs/contract.md#cancellation; docs/architecture.md, "A forced cancel ends the
 * provider's invocation"). The handler (test/fixtures/runaway-provider.js) ignores every stop
 * notice and ticks a counter held by a Durable Object about every 10 ms. Each test abandons its
 * call one way, then watches it while a second handler, which nobody abandons, ticks 30 more
 * times: that one is the clock, so no wall-clock threshold decides. A handler still running
 * ticks about as often as the clock; one whose invocation has ended ticks at most once more (a
 * tick already under way), and never returns.
 *
 * Each test asserts what workerd does today. Where the handler runs on, a runtime that starts
 * to end it fails the test, and says that a simpler forced cancel has become possible; where it
 * ends, a runtime that stops ending it fails the test, and says that forced cancels no longer
 * stop the work (src/execution/provider-relay.ts relies on the last three). The file leaves a
 * few lines of workerd's "code had hung and would never generate a response" in the terminal:
 * invocations of test-runaway whose pending work the tests cut off, as intended.
 */
import { env, RpcStub, RpcTarget } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";

interface Progress {
  ticks: number;
  saw_abort: boolean;
  returned: boolean;
}
interface Runaway {
  work(run: string, sink: unknown): Promise<string>;
  progress(run: string): Promise<Progress>;
  stop(run: string): Promise<void>;
  fetch(url: string, init?: RequestInit): Promise<Response>;
}
interface Relay extends Fetcher {
  relay(run: string, sink: AbandonableSink, how: { forward?: boolean; as_is?: boolean }): Promise<unknown>;
}
const testEnv = env as Env & { TEST_RUNAWAY: Runaway; TEST_RUNAWAY_RELAY: Relay };
const runaway = testEnv.TEST_RUNAWAY;

/** `Symbol.dispose`, which the runtime has and this project's TypeScript lib does not name. */
const DISPOSE: symbol = Reflect.get(Symbol, "dispose");

class Sink extends RpcTarget {
  emit(): void {}
}

/** A sink that can also tell a relay to give the call up (as src/execution/sink.ts does). */
class AbandonableSink extends Sink {
  #abandon!: () => void;
  readonly #abandoned = new Promise<{ abandoned: true }>(
    (resolve) => (this.#abandon = () => resolve({ abandoned: true })),
  );
  abandoned(): Promise<{ abandoned: true }> {
    return this.#abandoned;
  }
  abandon(): void {
    this.#abandon();
  }
}

const started: string[] = [];
const newRun = () => {
  const run = `run-${crypto.randomUUID()}`;
  started.push(run);
  return run;
};
const ticks = async (run: string) => (await runaway.progress(run)).ticks;

/** Polls `done` until it holds, at most `polls` times. */
async function until(done: () => Promise<boolean>, polls = 1_000): Promise<boolean> {
  for (let i = 0; i < polls; i++) {
    if (await done()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

/**
 * Starts a call, abandons it once its handler has ticked twice, and answers how far the handler
 * went on while the clock ticked 30 more times.
 */
async function abandonAndWatch(start: (run: string) => { abandon: () => void; settled: Promise<unknown> }) {
  const run = newRun();
  const clock = newRun();
  const clockCall = runaway.work(clock, new Sink());
  const call = start(run);
  // The abandoned call's own end (a rejection, for an aborted fetch) is not what is watched.
  call.settled.catch(() => {});
  expect(await until(async () => (await ticks(run)) >= 2)).toBe(true);
  call.abandon();
  const from = await ticks(run);
  const clockFrom = await ticks(clock);
  expect(await until(async () => (await ticks(clock)) >= clockFrom + 30)).toBe(true);
  const after = await runaway.progress(run);
  await runaway.stop(clock);
  await clockCall;
  return { went_on: after.ticks - from, progress: after };
}

/** A handler still running: it ticked about as often as the clock. */
const ranOn = (r: { went_on: number }) => expect(r.went_on).toBeGreaterThanOrEqual(10);
/** A handler whose invocation ended: at most a tick already under way, and it never returned. */
const ended = (r: { went_on: number; progress: Progress }) => {
  expect(r.went_on).toBeLessThanOrEqual(1);
  expect(r.progress.returned).toBe(false);
};

afterEach(async () => {
  // No handler outlives its test: each is told to stop, and one still running returns.
  for (const run of started.splice(0)) await runaway.stop(run);
});

describe("a provider call its caller abandons, in workerd", () => {
  it("over RPC, from a caller that lives on (an execution object): the handler runs on after the caller disposes the call's promise and the sink's stub", async () => {
    const watched = await abandonAndWatch((run) => {
      const sink = new RpcStub(new Sink());
      const answer = runaway.work(run, sink.dup());
      return {
        settled: answer,
        abandon: () => {
          for (const held of [answer, sink]) {
            const dispose: unknown = Reflect.get(held, DISPOSE);
            expect(typeof dispose).toBe("function");
            Reflect.apply(dispose as () => void, held, []);
          }
        },
      };
    });
    ranOn(watched);
    expect(watched.progress.returned).toBe(false);
  });

  it("over a fetch-style call: aborting its signal ends the handler's invocation (it never runs again, so never even sees request.signal fire)", async () => {
    const watched = await abandonAndWatch((run) => {
      const controller = new AbortController();
      return {
        settled: runaway.fetch(`http://runaway/?run=${run}`, { signal: controller.signal }),
        abandon: () => controller.abort(),
      };
    });
    ended(watched);
    expect(watched.progress.saw_abort).toBe(false);
  });

  it("over RPC, from a request of its own: ending that request (aborting its fetch) ends the handler's invocation", async () => {
    // The documented rule (Workers RPC, Lifecycle): a client that is itself a Worker disconnects
    // when its own execution context ends, and the server's context is then cancelled.
    ended(
      await abandonAndWatch((run) => {
        const controller = new AbortController();
        return {
          settled: testEnv.TEST_RUNAWAY_RELAY.fetch(`http://relay/?run=${run}`, { signal: controller.signal }),
          abandon: () => controller.abort(),
        };
      }),
    );
  });

  it("over RPC through a relay that answers once told to abandon: the handler's invocation ends with the relay's", async () => {
    ended(
      await abandonAndWatch((run) => {
        const sink = new AbandonableSink();
        return { settled: testEnv.TEST_RUNAWAY_RELAY.relay(run, sink, {}), abandon: () => sink.abandon() };
      }),
    );
  });

  it("but not when the relay hands the handler its caller's sink itself: the stub it passed on keeps the relay open", async () => {
    ranOn(
      await abandonAndWatch((run) => {
        const sink = new AbandonableSink();
        return {
          settled: testEnv.TEST_RUNAWAY_RELAY.relay(run, sink, { forward: true }),
          abandon: () => sink.abandon(),
        };
      }),
    );
  });

  it("nor when the relay answers a value that came out of an RPC call as it came: its caller keeps the relay open until it disposes it", async () => {
    ranOn(
      await abandonAndWatch((run) => {
        const sink = new AbandonableSink();
        return {
          settled: testEnv.TEST_RUNAWAY_RELAY.relay(run, sink, { as_is: true }),
          abandon: () => sink.abandon(),
        };
      }),
    );
  });
});
