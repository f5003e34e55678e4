/**
 * One tenant's admission ledger (AIOS §6.3 RateLimited; TRT-002 §4 limits), pure: token
 * buckets per tenant and per tenant+tool, and the tenant's concurrency slots. Slots are held
 * two ways: by one execution that runs in its own object (async, streamed, keyed), or in bulk
 * by an edge isolate's lease for the fast path (src/policy/lease.ts). Every token and slot
 * belongs to exactly one holder, so the limits hold across any number of isolates.
 * The TenantObject is a shell around this.
 */
import type { TenantLimits } from "./limits.ts";
import { refill, waitForToken, type Bucket } from "./token-bucket.ts";

export type Refusal = { ok: false; reason: "rate" | "tool_rate" | "concurrency" | "streams"; retry_after_ms: number; limit: number };
export type Admission = { ok: true } | Refusal;

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

/** A live execution the tenant's ledger holds a slot for (the live part of the execution index). */
export interface LiveExecution {
  execution_id: string;
  tool: string;
  version: string;
  mode: string;
  project: string | null;
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

  /** One execution that runs in its object: one token of each bucket and one slot, or neither. */
  admit(r: Omit<LiveExecution, "expires"> & { lease_ms: number; limits: TenantLimits }, now: number): Admission {
    this.#expire(now);
    if (this.#executions.has(r.execution_id)) return { ok: true };
    if (this.#held() >= r.limits.max_concurrent) return this.#full(r.limits, now);
    const taken = this.#take(r.tool, 1, 1, r.limits, now);
    if (!taken.ok) return taken;
    this.#executions.set(r.execution_id, { execution_id: r.execution_id, tool: r.tool, version: r.version, mode: r.mode, project: r.project, accepted_at: r.accepted_at, expires: now + r.lease_ms });
    return { ok: true };
  }

  release(executionId: string): void {
    this.#executions.delete(executionId);
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
    if (others + must > limit && r.need_slot) {
      this.#setLease(r.lease_id, r.in_use, now + r.lease_ms);
      return this.#full(r.limits, now);
    }
    // Spare slots come only from the half of the tenant's capacity nobody holds, so an idle
    // spare in one isolate never keeps a call in another from running when room is short.
    const spare = Math.max(0, Math.min(r.slots - must, limit - others - must - Math.ceil(limit / 2)));
    const slots = must + spare;
    let tokens = 0;
    if (r.tokens > 0) {
      const taken = this.#take(r.tool, r.tokens, 1, r.limits, now);
      if (!taken.ok) {
        this.#setLease(r.lease_id, r.in_use, now + r.lease_ms);
        return taken;
      }
      tokens = taken.n;
    }
    this.#setLease(r.lease_id, slots, now + r.lease_ms);
    return { ok: true, tokens, slots, expires_at: now + r.lease_ms };
  }

  /**
   * An event stream opening (any face), or one renewing its lease: one of the tenant's
   * `limit` open streams, held until `closeStream` or until the lease lapses unrenewed.
   */
  openStream(id: string, limit: number, leaseMs: number, now: number): Admission {
    for (const [s, expires] of this.#streams) if (expires <= now) this.#streams.delete(s);
    if (!this.#streams.has(id) && this.#streams.size >= limit) return { ok: false, reason: "streams", retry_after_ms: 5_000, limit };
    this.#streams.set(id, now + leaseMs);
    return { ok: true };
  }

  closeStream(id: string): void {
    this.#streams.delete(id);
  }

  /** Executions holding a slot in their own object, oldest first. */
  live(now: number): LiveExecution[] {
    this.#expire(now);
    return [...this.#executions.values()].sort((a, b) => a.accepted_at - b.accepted_at);
  }

  /** Slots held right now, by executions and by isolates' leases. */
  running(now: number): number {
    this.#expire(now);
    return this.#held();
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
    if (tenant.tokens < min) return { ok: false, reason: "rate", retry_after_ms: waitForToken(tenant, limits.requests_per_second), limit: limits.requests_per_second };
    if (toolBucket.tokens < min) return { ok: false, reason: "tool_rate", retry_after_ms: waitForToken(toolBucket, limits.tool_requests_per_second), limit: limits.tool_requests_per_second };
    const n = Math.max(min, Math.min(want, Math.floor(tenant.tokens), Math.floor(toolBucket.tokens)));
    this.#tenant = { tokens: tenant.tokens - n, updated: now };
    this.#tools.set(tool, { tokens: toolBucket.tokens - n, updated: now });
    return { ok: true, n };
  }

  #full(limits: TenantLimits, now: number): Refusal {
    let soonest = Infinity;
    for (const e of this.#executions.values()) soonest = Math.min(soonest, e.expires);
    for (const l of this.#leases.values()) soonest = Math.min(soonest, l.expires);
    return { ok: false, reason: "concurrency", retry_after_ms: Math.max(1, Math.min(soonest - now, 5_000)), limit: limits.max_concurrent };
  }

  #expire(now: number): void {
    for (const [id, e] of this.#executions) if (e.expires <= now) this.#executions.delete(id);
    for (const [id, l] of this.#leases) if (l.expires <= now) this.#leases.delete(id);
  }
}
