/**
 * Every open event stream counts against its tenant (docs/contract.md#streaming): a stream takes
 * one of the tenant's `max_streams` (TENANT_LIMITS) from the tenant's object before it is
 * opened, on whichever face asks (SSE, Connect, Workers RPC, MCP all get their streams from the
 * execution service), and gives it back when it ends, its reader cancels, or it fails. Over the
 * limit a stream is refused with `rate_limited` (reason `streams`) before anything is started.
 *
 * A slot is a lease, renewed every STREAM_RENEW_MS while the stream is open: if the isolate
 * holding it goes away without saying so, the slot lapses within STREAM_LEASE_MS.
 */
import type { ExecutionEvent } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { tenantStub } from "../object-stubs.ts";
import { refusal } from "../policy/admission.ts";
import { limitsFor } from "../policy/limits.ts";

export const STREAM_LEASE_MS = 90_000;
export const STREAM_RENEW_MS = 30_000;

/** The events a face reads: one at a time, or as they arrived together. */
export interface EventSource extends AsyncIterable<ExecutionEvent> {
  batches(): AsyncIterable<ExecutionEvent[]>;
}

/** One of a tenant's stream slots, taken; `hold` ties it to a stream, `release` gives it back. */
export class StreamSlot {
  readonly #env: Env;
  readonly #tenant: string;
  readonly #id = crypto.randomUUID();
  readonly #limit: number;
  #renew: ReturnType<typeof setInterval> | undefined;
  #released = false;

  private constructor(env: Env, tenant: string, limit: number) {
    this.#env = env;
    this.#tenant = tenant;
    this.#limit = limit;
  }

  /** Takes a slot, or throws `rate_limited` (reason `streams`) when the tenant has none left. */
  static async take(env: Env, tenant: string): Promise<StreamSlot> {
    const slot = new StreamSlot(env, tenant, limitsFor(loadConfig(env).limits, tenant).max_streams);
    const admission = await slot.#stub().openStream(slot.#id, slot.#limit, STREAM_LEASE_MS);
    if (!admission.ok) throw refusal(admission, "");
    return slot;
  }

  /** `events`, holding this slot until they end, fail or their reader stops reading. */
  hold(events: EventSource): EventSource {
    this.#renew = setInterval(() => {
      this.#stub()
        .openStream(this.#id, this.#limit, STREAM_LEASE_MS)
        .catch(() => {});
    }, STREAM_RENEW_MS);
    const guard = <T>(inner: AsyncIterator<T>): AsyncIterator<T> => ({
      // Each release is awaited before the stream says it ended, so it happens within the
      // request (an RPC still open when the request ends is dropped with it: seen here).
      next: () =>
        inner.next().then(
          async (r) => {
            if (r.done) await this.release();
            return r;
          },
          async (err: unknown) => {
            await this.release();
            throw err;
          },
        ),
      // The reader stopped: the slot is free at once, whatever the inner stream still waits for.
      return: async (value?: unknown) => {
        await this.release();
        return inner.return ? inner.return(value) : { done: true, value: undefined as T };
      },
    });
    return {
      batches: () => ({ [Symbol.asyncIterator]: () => guard(events.batches()[Symbol.asyncIterator]()) }),
      [Symbol.asyncIterator]: () => guard(events[Symbol.asyncIterator]()),
    };
  }

  /** Gives the slot back (once; later calls do nothing). Await it: the request must outlive it. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    if (this.#renew !== undefined) clearInterval(this.#renew);
    await this.#stub()
      .closeStream(this.#id)
      .catch((err) =>
        console.warn(
          JSON.stringify({
            msg: "stream slot release failed; its lease lapses by itself",
            tenant: this.#tenant,
            error: String(err),
          }),
        ),
      );
  }

  #stub() {
    return tenantStub(this.#env, this.#tenant);
  }
}
