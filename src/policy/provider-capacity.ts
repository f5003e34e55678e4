/**
 * One provider's capacity (issue 15), pure: the calls in flight at it (each holds a permit from
 * dispatch until the provider's call returns) and the executions waiting for room, first come
 * first served. The runtime never has more permits out than the provider's `max_concurrency`.
 * A permit has a lease: one whose holder vanished (its object restarted, its isolate died)
 * comes back by itself when the lease ends. The ProviderGate object is a shell around this.
 */

export interface Permit {
  id: string;
  execution_id: string;
  expires: number;
}

/** An execution waiting for room; `permit_id` is the permit it will hold once granted. */
export interface GateWaiter {
  execution_id: string;
  permit_id: string;
  ticket: number;
  lease_ms: number;
}

export type Acquired = { ok: true } | { ok: false; position?: number };

export class ProviderCapacity {
  readonly #permits = new Map<string, Permit>();
  #queue: GateWaiter[] = [];
  #nextTicket = 1;
  #limit = Infinity;
  #grants: GateWaiter[] = [];

  /**
   * A permit for one call now, or, when it may `wait`, a place in the queue. While anyone
   * waits, a caller that will not wait is refused even if a permit is free: the queue goes first.
   */
  acquire(r: { permit_id: string; execution_id: string; limit: number; lease_ms: number; wait: boolean }, now: number): Acquired {
    this.#limit = r.limit;
    this.#expire(now);
    if (this.#permits.has(r.permit_id)) return { ok: true };
    const waiting = this.#queue.findIndex((w) => w.execution_id === r.execution_id);
    if (waiting >= 0) return { ok: false, position: waiting + 1 };
    if (this.#queue.length === 0 && this.#permits.size < this.#limit) {
      this.#permits.set(r.permit_id, { id: r.permit_id, execution_id: r.execution_id, expires: now + r.lease_ms });
      return { ok: true };
    }
    if (!r.wait) return { ok: false };
    this.#queue.push({ execution_id: r.execution_id, permit_id: r.permit_id, ticket: this.#nextTicket++, lease_ms: r.lease_ms });
    this.#pump(now);
    if (this.#permits.has(r.permit_id)) {
      // Its turn came at once: the answer is the grant.
      this.#grants = this.#grants.filter((g) => g.permit_id !== r.permit_id);
      return { ok: true };
    }
    return { ok: false, position: this.#queue.findIndex((w) => w.execution_id === r.execution_id) + 1 };
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

  /** 1-based place in the queue, or undefined when it does not wait here. */
  position(executionId: string): number | undefined {
    const i = this.#queue.findIndex((w) => w.execution_id === executionId);
    return i < 0 ? undefined : i + 1;
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
    while (this.#queue.length > 0 && this.#permits.size < this.#limit) {
      const head = this.#queue.shift()!;
      this.#permits.set(head.permit_id, { id: head.permit_id, execution_id: head.execution_id, expires: now + head.lease_ms });
      this.#grants.push(head);
    }
  }

  #expire(now: number): void {
    let freed = false;
    for (const [id, p] of this.#permits) if (p.expires <= now) freed = this.#permits.delete(id);
    if (freed) this.#pump(now);
  }
}
