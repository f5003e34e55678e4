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
 */
import { DurableObject } from "cloudflare:workers";
import { objectStub } from "../src/execution/ids.ts";
import { ProviderCapacity, type Acquired, type GateWaiter, type Permit } from "../src/policy/provider-capacity.ts";

const GRANT_RETRY_MS = 2_000;
type StoredWaiter = GateWaiter & { granting?: boolean };
const waiterKey = (ticket: number) => `w:${String(ticket).padStart(12, "0")}`;

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
  readonly #waiters = new Map<string, StoredWaiter>();
  readonly #delivering = new Set<string>();
  #stored = new Set<string>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const kv = ctx.storage.kv;
    const permits = [...kv.list<Permit>({ prefix: "p:" })].map(([, p]) => p);
    for (const p of permits) this.#stored.add(p.id);
    const queue: StoredWaiter[] = [];
    for (const [, w] of kv.list<StoredWaiter>({ prefix: "w:" })) {
      this.#waiters.set(w.execution_id, w);
      if (!w.granting) queue.push(w);
    }
    this.#capacity.restore(permits, queue, kv.get<number>("t") ?? 1, kv.get<number>("l"), Date.now());
  }

  async acquire(r: AcquireRequest): Promise<Acquired> {
    const kv = this.ctx.storage.kv;
    if (kv.get("n") !== r.provider) kv.put("n", r.provider);
    if (kv.get("l") !== r.limit) kv.put("l", r.limit);
    const answer = this.#capacity.acquire(r, Date.now());
    if (!answer.ok && "position" in answer && answer.position !== undefined && !this.#waiters.has(r.execution_id)) {
      const ticket = this.#capacity.nextTicket - 1;
      this.#putWaiter({
        execution_id: r.execution_id,
        permit_id: r.permit_id,
        ticket,
        lease_ms: r.lease_ms,
        tenant: r.tenant,
      });
      kv.put("t", this.#capacity.nextTicket);
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
    this.#dropWaiter(executionId);
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
    for (const g of this.#capacity.takeGrants()) this.#putWaiter({ ...g, granting: true });
    const live = new Set<string>();
    let soonest = Infinity;
    for (const p of this.#capacity.permits()) {
      live.add(p.id);
      soonest = Math.min(soonest, p.expires);
      if (!this.#stored.has(p.id)) kv.put(`p:${p.id}`, p);
    }
    for (const id of this.#stored) if (!live.has(id)) kv.delete(`p:${id}`);
    this.#stored = live;
    this.#deliver();
    const due = this.#waiters.size > 0 ? Math.min(soonest, Date.now() + GRANT_RETRY_MS) : soonest;
    if (!Number.isFinite(due)) return;
    const at = await this.ctx.storage.getAlarm();
    if (at === null || at > due) await this.ctx.storage.setAlarm(due);
  }

  /** Tells each waiter handed a permit; one that no longer wants it gives it back. */
  #deliver(): void {
    const provider = this.ctx.storage.kv.get<string>("n");
    if (!provider) return;
    for (const w of this.#waiters.values()) {
      if (!w.granting || this.#delivering.has(w.execution_id)) continue;
      this.#delivering.add(w.execution_id);
      void objectStub(this.env, w.execution_id)
        .capacityGranted(provider, w.permit_id)
        .then(
          async (taken) => {
            this.#dropWaiter(w.execution_id);
            if (!taken) this.#capacity.release(w.permit_id, Date.now());
            await this.#afterChange();
          },
          (err) =>
            console.warn(
              JSON.stringify({
                msg: "permit grant not delivered; the alarm tries again",
                execution_id: w.execution_id,
                error: String(err),
              }),
            ),
        )
        .finally(() => this.#delivering.delete(w.execution_id));
    }
  }

  #putWaiter(w: StoredWaiter): void {
    this.#waiters.set(w.execution_id, w);
    this.ctx.storage.kv.put(waiterKey(w.ticket), w);
  }

  #dropWaiter(executionId: string): void {
    const w = this.#waiters.get(executionId);
    if (!w) return;
    this.#waiters.delete(executionId);
    this.ctx.storage.kv.delete(waiterKey(w.ticket));
  }
}
