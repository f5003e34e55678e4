/**
 * One tenant's admission ledger (docs/contract.md#limits), pure: token
 * buckets per tenant and per tenant+tool, the tenant's concurrency slots, and the queue of
 * executions waiting for one (docs/contract.md#waiting). Slots are held two ways: by one execution that runs
 * in its own object (async, streamed, keyed, or a sync call that waits), or in bulk by an edge
 * isolate's lease for the fast path (src/policy/lease.ts). Every token and slot belongs to
 * exactly one holder, so the limits hold across any number of isolates.
 *
 * The queue is first come first served: a ticket per waiting execution, and a freed slot goes
 * to the lowest ticket. While anything waits, isolates' leases get no new slots (the queue goes
 * first), so the fast path cannot starve queued work. Slots handed to the queue are collected
 * as grants (`takeGrants`) for the shell to deliver. The TenantObject is a shell around this.
 */
import type { TenantLimits } from "./limits.ts";
import { refill, waitForToken, type Bucket } from "./token-bucket.ts";

export type Refusal = {
  ok: false;
  reason: "rate" | "tool_rate" | "concurrency" | "queue_full" | "streams";
  retry_after_ms: number;
  limit: number;
};
/** Admitted with a slot now, or (when it may wait) queued at `position` (1 is next). */
export type Admission =
  { ok: true; queued?: undefined } | { ok: true; queued: QueuedExecution; position: number } | Refusal;

/** What an execution in its own object asks for. */
export interface AdmitRequest extends Omit<LiveExecution, "expires" | "status"> {
  lease_ms: number;
  limits: TenantLimits;
  /** It may wait in the queue rather than be refused for concurrency. */
  wait: boolean;
  /** Rate tokens were already taken for it (accepted earlier, then approved): take none now. */
  paid?: boolean;
}

/** An execution waiting for a slot. */
export interface QueuedExecution extends Omit<LiveExecution, "expires" | "status"> {
  ticket: number;
  lease_ms: number;
  /** The limits it was queued under (a restarted ledger has no other copy). */
  max_concurrent: number;
}

export interface LeaseRequest {
  lease_id: string;
  tool: string;
  /** Tokens wanted now for the tenant's and the tool's bucket (at least 1 each is needed). */
  tokens: number;
  /** Tokens leased earlier that expired unspent: back into both buckets. */
  give_back: number;
  /** Slots the isolate would like to hold after this request (in use plus a few spare). */
  slots: number;
  /** Slots the isolate must keep whatever happens: calls of its own still in flight. */
  in_use: number;
  /** A call is waiting for a slot of its own (not a background top-up). */
  need_slot: boolean;
  lease_ms: number;
  limits: TenantLimits;
}

export type LeaseGrant = { ok: true; tokens: number; slots: number; expires_at: number } | Refusal;

/** An isolate's tokens for requests that are not calls (src/policy/request-lease.ts). */
export interface RequestLeaseRequest {
  /** Wanted now; fewer than `need` is a refusal. */
  tokens: number;
  need: number;
  /** Tokens leased earlier that expired unspent: back into the tenant's bucket. */
  give_back: number;
  limits: TenantLimits;
}

/** A live execution the tenant's ledger holds a slot for (the live part of the execution index). */
export interface LiveExecution {
  execution_id: string;
  /** running: it holds a slot; queued: it waits for one. */
  status: "running" | "queued";
  tool: string;
  version: string;
  mode: string;
  project: string | null;
  /** The agent that made the call (absent in a ledger restored from before agents were kept). */
  agent?: string;
  accepted_at: number;
  expires: number;
}

export class TenantLedger {
  #tenant: Bucket | undefined;
  readonly #tools = new Map<string, Bucket>();
  readonly #executions = new Map<string, LiveExecution>();
  readonly #leases = new Map<string, { slots: number; expires: number }>();
  /** Open event streams: id → lease expiry (renewed while the stream is open). */
  readonly #streams = new Map<string, number>();
  /** Waiting executions, lowest ticket first. */
  #queue: QueuedExecution[] = [];
  #nextTicket = 1;
  /** Slots handed to queued executions since the shell last took them. */
  #grants: QueuedExecution[] = [];

  /**
   * One execution that runs in its object: one token of each bucket and one slot, or neither.
   * One that may wait and finds no slot (or others already waiting) takes its tokens and a
   * place in the queue instead, up to `max_queued`.
   */
  admit(r: AdmitRequest, now: number): Admission {
    this.#expire(now);
    if (this.#executions.has(r.execution_id)) return { ok: true };
    const waiting = this.#queue.find((q) => q.execution_id === r.execution_id);
    if (waiting) return { ok: true, queued: waiting, position: this.#queue.indexOf(waiting) + 1 };
    const full = this.#queue.length > 0 || this.#held() >= r.limits.max_concurrent;
    if (full && !r.wait) return this.#full(r.limits, now);
    if (full && this.#queue.length >= r.limits.max_queued)
      return { ...this.#full(r.limits, now), reason: "queue_full", limit: r.limits.max_queued };
    if (!r.paid) {
      const taken = this.#take(r.tool, 1, 1, r.limits, now);
      if (!taken.ok) return taken;
    }
    const { wait: _w, paid: _p, limits, ...fields } = r;
    if (full) {
      const queued: QueuedExecution = { ...fields, ticket: this.#nextTicket++, max_concurrent: limits.max_concurrent };
      this.#queue.push(queued);
      return { ok: true, queued, position: this.#queue.length };
    }
    this.#hold(fields, now);
    return { ok: true };
  }

  /**
   * A call that waits for a person first (docs/contract.md#approvals): its rate tokens now, so an approved call
   * is never refused for rate later; its slot (or place in the queue) only once approved.
   */
  accept(r: { tool: string; limits: TenantLimits }, now: number): Admission {
    const taken = this.#take(r.tool, 1, 1, r.limits, now);
    return taken.ok ? { ok: true } : taken;
  }

  /** The execution ended (or gave up its place): its slot, or its place in the queue, is free. */
  release(executionId: string, now: number): void {
    this.#executions.delete(executionId);
    this.#queue = this.#queue.filter((q) => q.execution_id !== executionId);
    this.#pump(now);
  }

  /** 1-based place in the queue; 0 when it holds a slot; undefined when the ledger does not know it. */
  position(executionId: string, now: number): number | undefined {
    this.#expire(now);
    if (this.#executions.has(executionId)) return 0;
    const i = this.#queue.findIndex((q) => q.execution_id === executionId);
    return i < 0 ? undefined : i + 1;
  }

  /** Queued executions that were handed a slot since the last call; the shell tells each. */
  takeGrants(): QueuedExecution[] {
    const out = this.#grants;
    this.#grants = [];
    return out;
  }

  /**
   * A restarted shell's persisted state: the queue in ticket order, and executions that were
   * handed a slot whose grant was not yet confirmed (they hold it again).
   */
  restore(queue: QueuedExecution[], granted: QueuedExecution[], nextTicket: number, now: number): void {
    this.#queue = [...queue].sort((a, b) => a.ticket - b.ticket);
    for (const g of granted) this.#hold(g, now);
    this.#nextTicket = Math.max(nextTicket, ...queue.map((q) => q.ticket + 1), ...granted.map((g) => g.ticket + 1));
    this.#pump(now);
  }

  get nextTicket(): number {
    return this.#nextTicket;
  }

  get queued(): number {
    return this.#queue.length;
  }

  /**
   * An isolate's lease: up to `tokens` tokens (the ones it does not spend are lost, never
   * returned: the bucket refills) and its slots set to what it asks for, within the limit.
   * A request with `tokens: 0` only renews or gives back slots.
   */
  lease(r: LeaseRequest, now: number): LeaseGrant {
    this.#expire(now);
    if (r.give_back > 0) this.#giveBack(r.tool, r.give_back, r.limits, now);
    const limit = r.limits.max_concurrent;
    const others = this.#held() - (this.#leases.get(r.lease_id)?.slots ?? 0);
    const must = r.in_use + (r.need_slot ? 1 : 0);
    // While executions wait, a lease keeps only what its calls use: the queue goes first.
    const queueing = this.#queue.length > 0;
    if (r.need_slot && (queueing || others + must > limit)) {
      this.#setLease(r.lease_id, r.in_use, now + r.lease_ms);
      this.#pump(now);
      return this.#full(r.limits, now);
    }
    // Spare slots come only from the half of the tenant's capacity nobody holds, so an idle
    // spare in one isolate never keeps a call in another from running when room is short.
    const spare = queueing ? 0 : Math.max(0, Math.min(r.slots - must, limit - others - must - Math.ceil(limit / 2)));
    const slots = must + spare;
    let tokens = 0;
    if (r.tokens > 0) {
      const taken = this.#take(r.tool, r.tokens, 1, r.limits, now);
      if (!taken.ok) {
        this.#setLease(r.lease_id, r.in_use, now + r.lease_ms);
        this.#pump(now);
        return taken;
      }
      tokens = taken.n;
    }
    this.#setLease(r.lease_id, slots, now + r.lease_ms);
    this.#pump(now);
    return { ok: true, tokens, slots, expires_at: now + r.lease_ms };
  }

  /**
   * Tokens for an isolate's requests that are not calls (reads, lists, dry runs, stream opens,
   * cancels, approvals): from the tenant's bucket only, since such a request uses no tool.
   */
  leaseRequests(r: RequestLeaseRequest, now: number): { ok: true; tokens: number } | Refusal {
    const limits = r.limits;
    const bucket = refill(this.#tenant, limits.requests_per_second, limits.burst, now);
    const tokens = Math.min(limits.burst, bucket.tokens + Math.max(0, r.give_back));
    if (tokens < r.need) {
      this.#tenant = { tokens, updated: now };
      return {
        ok: false,
        reason: "rate",
        retry_after_ms: waitForToken({ tokens: tokens - r.need + 1, updated: now }, limits.requests_per_second),
        limit: limits.requests_per_second,
      };
    }
    const n = Math.max(r.need, Math.min(r.tokens, Math.floor(tokens)));
    this.#tenant = { tokens: tokens - n, updated: now };
    return { ok: true, tokens: n };
  }

  /**
   * An event stream opening (any face), or one renewing its lease: one of the tenant's
   * `limit` open streams, held until `closeStream` or until the lease lapses unrenewed.
   */
  openStream(id: string, limit: number, leaseMs: number, now: number): Admission {
    for (const [s, expires] of this.#streams) if (expires <= now) this.#streams.delete(s);
    if (!this.#streams.has(id) && this.#streams.size >= limit)
      return { ok: false, reason: "streams", retry_after_ms: 5_000, limit };
    this.#streams.set(id, now + leaseMs);
    return { ok: true };
  }

  closeStream(id: string): void {
    this.#streams.delete(id);
  }

  /** Executions holding a slot in their own object, then those waiting for one, oldest first. */
  live(now: number): LiveExecution[] {
    this.#expire(now);
    const waiting = this.#queue.map((q): LiveExecution => ({
      execution_id: q.execution_id,
      status: "queued",
      tool: q.tool,
      version: q.version,
      mode: q.mode,
      project: q.project,
      agent: q.agent,
      accepted_at: q.accepted_at,
      expires: Infinity,
    }));
    return [...this.#executions.values(), ...waiting].sort((a, b) => a.accepted_at - b.accepted_at);
  }

  /** Slots held right now, by executions and by isolates' leases. */
  running(now: number): number {
    this.#expire(now);
    return this.#held();
  }

  /** Hands free slots to the head of the queue, in ticket order. */
  #pump(now: number): void {
    while (this.#queue.length > 0 && this.#held() < this.#queue[0].max_concurrent) {
      const head = this.#queue.shift()!;
      this.#hold(head, now);
      this.#grants.push(head);
    }
  }

  #hold(e: Omit<LiveExecution, "expires" | "status"> & { lease_ms: number }, now: number): void {
    this.#executions.set(e.execution_id, {
      execution_id: e.execution_id,
      status: "running",
      tool: e.tool,
      version: e.version,
      mode: e.mode,
      project: e.project,
      agent: e.agent,
      accepted_at: e.accepted_at,
      expires: now + e.lease_ms,
    });
  }

  #held(): number {
    let n = this.#executions.size;
    for (const l of this.#leases.values()) n += l.slots;
    return n;
  }

  #setLease(id: string, slots: number, expires: number): void {
    if (slots <= 0) this.#leases.delete(id);
    else this.#leases.set(id, { slots, expires });
  }

  #giveBack(tool: string, n: number, limits: TenantLimits, now: number): void {
    const tenant = refill(this.#tenant, limits.requests_per_second, limits.burst, now);
    const toolBucket = refill(this.#tools.get(tool), limits.tool_requests_per_second, limits.tool_burst, now);
    this.#tenant = { tokens: Math.min(limits.burst, tenant.tokens + n), updated: now };
    this.#tools.set(tool, { tokens: Math.min(limits.tool_burst, toolBucket.tokens + n), updated: now });
  }

  /** Takes up to `want` (at least `min`) tokens from both buckets, or none from either. */
  #take(tool: string, want: number, min: number, limits: TenantLimits, now: number): { ok: true; n: number } | Refusal {
    const tenant = refill(this.#tenant, limits.requests_per_second, limits.burst, now);
    const toolBucket = refill(this.#tools.get(tool), limits.tool_requests_per_second, limits.tool_burst, now);
    if (tenant.tokens < min)
      return {
        ok: false,
        reason: "rate",
        retry_after_ms: waitForToken(tenant, limits.requests_per_second),
        limit: limits.requests_per_second,
      };
    if (toolBucket.tokens < min)
      return {
        ok: false,
        reason: "tool_rate",
        retry_after_ms: waitForToken(toolBucket, limits.tool_requests_per_second),
        limit: limits.tool_requests_per_second,
      };
    const n = Math.max(min, Math.min(want, Math.floor(tenant.tokens), Math.floor(toolBucket.tokens)));
    this.#tenant = { tokens: tenant.tokens - n, updated: now };
    this.#tools.set(tool, { tokens: toolBucket.tokens - n, updated: now });
    return { ok: true, n };
  }

  #full(limits: TenantLimits, now: number): Refusal {
    let soonest = Infinity;
    for (const e of this.#executions.values()) soonest = Math.min(soonest, e.expires);
    for (const l of this.#leases.values()) soonest = Math.min(soonest, l.expires);
    return {
      ok: false,
      reason: "concurrency",
      retry_after_ms: Math.max(1, Math.min(soonest - now, 5_000)),
      limit: limits.max_concurrent,
    };
  }

  #expire(now: number): void {
    let freed = false;
    for (const [id, e] of this.#executions) if (e.expires <= now) freed = this.#executions.delete(id);
    for (const [id, l] of this.#leases) if (l.expires <= now) freed = this.#leases.delete(id);
    if (freed) this.#pump(now);
  }
}
