/**
 * One provider's capacity, pure: the calls in flight at it (each holds a permit from dispatch
 * until the provider's call returns) and the executions waiting for room. The runtime never has
 * more permits out than the provider's `max_concurrency`. A permit has a lease: one whose
 * holder vanished (its object restarted, its isolate died) comes back by itself when the lease
 * ends. The ProviderGate object is a shell around this.
 *
 * The line is fair between tenants, because a provider's permits are shared by all of them
 * (docs/architecture.md, "Order and isolation"):
 * - a permit that comes free goes to the waiting tenant holding the fewest permits now; among
 *   tenants holding as many, to the one served least recently (round robin), then by ticket.
 *   Within a tenant, first come first served. So a tenant holding many permits, or with many
 *   calls waiting, keeps another tenant waiting for one freed permit at most.
 * - one tenant may have at most `tenantShare(n)` calls waiting, n being the number of tenants
 *   waiting (itself included): the whole line (QUEUE_SLOTS) when alone, an equal part of it
 *   when not, never fewer than MIN_TENANT_SLOTS. A tenant already past its share keeps the
 *   places it has but takes no more until it is under the share again.
 */

export interface Permit {
  id: string;
  execution_id: string;
  expires: number;
  /** Whose call holds it (absent on permits stored before tenants were kept: counted as one unknown tenant). */
  tenant?: string;
}

/** An execution waiting for room; `permit_id` is the permit it will hold once granted. */
export interface GateWaiter {
  execution_id: string;
  permit_id: string;
  ticket: number;
  lease_ms: number;
  tenant?: string;
}

export type Acquired =
  { ok: true } | { ok: false; position?: number } | { ok: false; reason: "queue_share"; limit: number };

/** The waiting line's size that tenants share. */
export const QUEUE_SLOTS = 100;
/** The fewest places a tenant may hold in the line, however many tenants wait. */
export const MIN_TENANT_SLOTS = 10;

/** How many calls one tenant may have waiting when `tenants` tenants wait (itself included). */
export function tenantShare(tenants: number): number {
  return Math.max(MIN_TENANT_SLOTS, Math.floor(QUEUE_SLOTS / Math.max(1, tenants)));
}

const tenantOf = (x: { tenant?: string }) => x.tenant ?? "";

export class ProviderCapacity {
  readonly #permits = new Map<string, Permit>();
  #queue: GateWaiter[] = [];
  #nextTicket = 1;
  #limit = Infinity;
  #grants: GateWaiter[] = [];
  /** When each tenant with calls waiting or in flight was last handed a permit (a grant count): the round robin's memory. */
  #served = new Map<string, number>();
  #grantCount = 0;

  /**
   * A permit for one call now, or, when it may `wait`, a place in the line (within its tenant's
   * share). While anyone waits, a caller that will not wait is refused even if a permit is
   * free: the line goes first.
   */
  acquire(
    r: { permit_id: string; execution_id: string; tenant: string; limit: number; lease_ms: number; wait: boolean },
    now: number,
  ): Acquired {
    this.#limit = r.limit;
    this.#expire(now);
    if (this.#permits.has(r.permit_id)) return { ok: true };
    const waiting = this.position(r.execution_id);
    if (waiting !== undefined) return { ok: false, position: waiting };
    if (this.#queue.length === 0 && this.#permits.size < this.#limit) {
      this.#permits.set(r.permit_id, {
        id: r.permit_id,
        execution_id: r.execution_id,
        tenant: r.tenant,
        expires: now + r.lease_ms,
      });
      this.#served.set(r.tenant, ++this.#grantCount);
      this.#forget();
      return { ok: true };
    }
    if (!r.wait) return { ok: false };
    const share = tenantShare(new Set([...this.#queue.map(tenantOf), r.tenant]).size);
    if (this.#queue.filter((w) => tenantOf(w) === r.tenant).length >= share)
      return { ok: false, reason: "queue_share", limit: share };
    this.#queue.push({
      execution_id: r.execution_id,
      permit_id: r.permit_id,
      ticket: this.#nextTicket++,
      lease_ms: r.lease_ms,
      tenant: r.tenant,
    });
    this.#pump(now);
    if (this.#permits.has(r.permit_id)) {
      // Its turn came at once: the answer is the grant.
      this.#grants = this.#grants.filter((g) => g.permit_id !== r.permit_id);
      return { ok: true };
    }
    return { ok: false, position: this.position(r.execution_id) };
  }

  /** The call returned: its permit goes to the next in line. */
  release(permitId: string, now: number): void {
    this.#permits.delete(permitId);
    this.#pump(now);
  }

  /** An execution stops waiting (cancelled, or out of time). */
  leave(executionId: string, now: number): void {
    this.#queue = this.#queue.filter((w) => w.execution_id !== executionId);
    this.#pump(now);
  }

  /**
   * 1-based place in line as things stand (the order the waiters would be granted in were
   * permits to come free one by one now), or undefined when it does not wait here.
   */
  position(executionId: string): number | undefined {
    if (!this.#queue.some((w) => w.execution_id === executionId)) return undefined;
    const queue = [...this.#queue];
    const held = this.#held();
    const served = new Map(this.#served);
    for (let place = 1, count = this.#grantCount; queue.length > 0; place++) {
      const [next] = queue.splice(nextInLine(queue, held, served), 1);
      if (next.execution_id === executionId) return place;
      held.set(tenantOf(next), (held.get(tenantOf(next)) ?? 0) + 1);
      served.set(tenantOf(next), ++count);
    }
    return undefined;
  }

  inFlight(now: number): number {
    this.#expire(now);
    return this.#permits.size;
  }

  get waiting(): number {
    return this.#queue.length;
  }

  get nextTicket(): number {
    return this.#nextTicket;
  }

  /** Waiters handed a permit since the last call (the shell tells each). */
  takeGrants(): GateWaiter[] {
    const out = this.#grants;
    this.#grants = [];
    return out;
  }

  /** What a restarted shell kept: permits out, the queue, the limit last asked with. */
  restore(permits: Permit[], queue: GateWaiter[], nextTicket: number, limit: number | undefined, now: number): void {
    for (const p of permits) this.#permits.set(p.id, p);
    this.#queue = [...queue].sort((a, b) => a.ticket - b.ticket);
    this.#nextTicket = Math.max(nextTicket, ...queue.map((w) => w.ticket + 1));
    if (limit !== undefined) this.#limit = limit;
    this.#expire(now);
    this.#pump(now);
  }

  /** Permits out, for the shell to keep (new grants included). */
  permits(): Permit[] {
    return [...this.#permits.values()];
  }

  #pump(now: number): void {
    const held = this.#held();
    while (this.#queue.length > 0 && this.#permits.size < this.#limit) {
      const [next] = this.#queue.splice(nextInLine(this.#queue, held, this.#served), 1);
      const tenant = tenantOf(next);
      this.#permits.set(next.permit_id, {
        id: next.permit_id,
        execution_id: next.execution_id,
        tenant,
        expires: now + next.lease_ms,
      });
      held.set(tenant, (held.get(tenant) ?? 0) + 1);
      this.#served.set(tenant, ++this.#grantCount);
      this.#grants.push(next);
    }
    this.#forget();
  }

  /** The round robin's memory is kept only for tenants still waiting or holding a permit. */
  #forget(): void {
    const live = new Set([...this.#queue.map(tenantOf), ...[...this.#permits.values()].map(tenantOf)]);
    for (const t of this.#served.keys()) if (!live.has(t)) this.#served.delete(t);
  }

  /** Permits held now, by tenant. */
  #held(): Map<string, number> {
    const held = new Map<string, number>();
    for (const p of this.#permits.values()) held.set(tenantOf(p), (held.get(tenantOf(p)) ?? 0) + 1);
    return held;
  }

  #expire(now: number): void {
    let freed = false;
    for (const [id, p] of this.#permits) if (p.expires <= now) freed = this.#permits.delete(id);
    if (freed) this.#pump(now);
  }
}

/**
 * The index in `queue` (by ticket) of the waiter served next: the first waiter of the tenant
 * holding the fewest permits, then served least recently (never served counts as longest ago),
 * then with the oldest ticket.
 */
function nextInLine(queue: GateWaiter[], held: Map<string, number>, served: Map<string, number>): number {
  let best = 0;
  let bestKey: [number, number] | undefined;
  const seen = new Set<string>();
  for (let i = 0; i < queue.length; i++) {
    const tenant = tenantOf(queue[i]);
    if (seen.has(tenant)) continue;
    seen.add(tenant);
    const key: [number, number] = [held.get(tenant) ?? 0, served.get(tenant) ?? 0];
    if (!bestKey || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
      best = i;
      bestKey = key;
    }
  }
  return best;
}
