/**
 * ProviderGate: one Durable Object per provider that declares `max_concurrency` (docs/contract.md#waiting), a
 * shell around src/policy/provider-capacity.ts. A call takes a permit here before it is sent to
 * the provider and gives it back when the provider's call returns; a call that finds no room
 * waits here in `scheduled`, in a line fair between tenants (src/policy/provider-capacity.ts),
 * and is told by `capacityGranted()` when a permit is its. Providers without a limit never
 * reach a gate.
 *
 * Unlike the tenant's ledger, permits are stored too: a restart must not forget calls still in
 * flight, or the provider would see more than its limit. That costs a write per call, paid
 * only by providers that asked to be protected.
 *   "p:<permit>"  a permit out          "w:<ticket>"  a waiter (`granting` once handed a permit)
 *   "t"           the next ticket       "l", "n"      the limit last asked with, the provider's name
 * The waiters are a waiting line (src/policy/waiting-line.ts): it stores them, tells each
 * waiter handed a permit, and retries by the alarm with backoff; a waiter's entry goes once it
 * answered (its permit, if taken, is stored as "p:").
 */
import { DurableObject } from "cloudflare:workers";
import { objectStub } from "../src/execution/ids.ts";
import { ProviderCapacity, type Acquired, type GateWaiter, type Permit } from "../src/policy/provider-capacity.ts";
import { WaitingLine } from "../src/policy/waiting-line.ts";
import { deliverGrants, keepAlarm, type GrantSender } from "./grant-delivery.ts";

/** How soon an undelivered permit grant is first tried again, and how often a waiting line is looked at. */
const GRANT_RETRY_MS = 2_000;
/** The longest wait between two tries of one grant (the delay doubles per failure). */
const GRANT_RETRY_MAX_MS = 16_000;

export interface AcquireRequest {
  provider: string;
  permit_id: string;
  execution_id: string;
  /** Whose call it is: the line is fair between tenants. */
  tenant: string;
  limit: number;
  lease_ms: number;
  wait: boolean;
}

export class ProviderGate extends DurableObject<Env> {
  readonly #capacity = new ProviderCapacity();
  /** Everything under "w:": who waits, who was handed a permit and is not yet told. */
  readonly #line: WaitingLine<GateWaiter>;
  readonly #sender: GrantSender<GateWaiter> = {
    what: "permit grant",
    send: (w) => objectStub(this.env, w.execution_id).capacityGranted(this.#provider(), w.permit_id),
    // A waiter that no longer wants its permit gives it back, to the next in line.
    declined: async (w) => {
      this.#capacity.release(w.permit_id, Date.now());
      await this.#afterChange();
    },
  };
  #stored = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const kv = ctx.storage.kv;
    const permits = [...kv.list<Permit>({ prefix: "p:" })].map(([, p]) => p);
    for (const p of permits) this.#stored.add(p.id);
    this.#line = new WaitingLine(kv, {
      prefix: "w:",
      keepTaken: false,
      retryMs: GRANT_RETRY_MS,
      maxRetryMs: GRANT_RETRY_MAX_MS,
    });
    // Granted waiters hold permits already stored under "p:"; the line tells them again.
    const { waiting, nextTicket } = this.#line.restore();
    this.#capacity.restore(permits, waiting, nextTicket, kv.get<number>("l"), Date.now());
  }

  async acquire(r: AcquireRequest): Promise<Acquired> {
    const kv = this.ctx.storage.kv;
    if (kv.get("n") !== r.provider) kv.put("n", r.provider);
    if (kv.get("l") !== r.limit) kv.put("l", r.limit);
    const answer = this.#capacity.acquire(r, Date.now());
    if (!answer.ok && "position" in answer && answer.position !== undefined && !this.#line.has(r.execution_id)) {
      const ticket = this.#capacity.nextTicket - 1;
      const waiter = {
        execution_id: r.execution_id,
        permit_id: r.permit_id,
        ticket,
        lease_ms: r.lease_ms,
        tenant: r.tenant,
      };
      this.#line.wait(waiter, this.#capacity.nextTicket);
    }
    await this.#afterChange();
    return answer;
  }

  async release(permitId: string): Promise<void> {
    this.#capacity.release(permitId, Date.now());
    await this.#afterChange();
  }

  /** An execution stops waiting here (cancelled, or out of time). */
  async leave(executionId: string): Promise<void> {
    this.#capacity.leave(executionId, Date.now());
    this.#line.forget(executionId);
    await this.#afterChange();
  }

  async position(executionId: string): Promise<number | null> {
    return this.#capacity.position(executionId) ?? null;
  }

  /** Calls in flight now and executions waiting (dry runs, tests, operators). */
  async load(): Promise<{ in_flight: number; waiting: number }> {
    const inFlight = this.#capacity.inFlight(Date.now());
    await this.#afterChange();
    return { in_flight: inFlight, waiting: this.#capacity.waiting };
  }

  async alarm(): Promise<void> {
    this.#capacity.inFlight(Date.now()); // expired permits go back, and on to waiters
    await this.#afterChange();
  }

  /** Storage follows the permits; new grants are marked and sent; the alarm covers what is left. */
  async #afterChange(): Promise<void> {
    const kv = this.ctx.storage.kv;
    for (const g of this.#capacity.takeGrants()) this.#line.grant(g);
    const live = new Set<string>();
    let soonest = Infinity;
    for (const p of this.#capacity.permits()) {
      live.add(p.id);
      soonest = Math.min(soonest, p.expires);
      if (!this.#stored.has(p.id)) kv.put(`p:${p.id}`, p);
    }
    for (const id of this.#stored) if (!live.has(id)) kv.delete(`p:${id}`);
    this.#stored = live;
    // The grant names the provider, which the gate learns from the first `acquire`.
    if (this.#provider()) deliverGrants(this.#line, this.#sender);
    await keepAlarm(this.ctx.storage, Math.min(soonest, this.#line.nextAlarm(Date.now()) ?? Infinity));
  }

  #provider(): string {
    return this.ctx.storage.kv.get<string>("n") ?? "";
  }
}
