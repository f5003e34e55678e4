/**
 * TenantObject: one Durable Object per tenant, the admission point for its calls — a shell
 * around the pure ledger (src/policy/ledger.ts). Executions that run in their own object take
 * a token and a slot here, one request each; edge isolates lease tokens and slots in bulk for
 * the fast path (src/policy/lease.ts), so most calls cost no request here at all.
 *
 * Why a Durable Object and not the platform's rate-limiting binding: the binding counts per
 * Cloudflare location and only over 10 s or 60 s periods, so it can neither bound a tenant
 * globally nor count concurrent executions. State is in memory on purpose (no storage write on
 * the hot path): if the object restarts, its buckets refill and its slots are forgotten, so for
 * a moment a tenant may get up to one extra burst and one extra `max_concurrent`.
 */
import { DurableObject } from "cloudflare:workers";
import { TenantLedger, type Admission, type LeaseGrant, type LeaseRequest, type LiveExecution } from "../src/policy/ledger.ts";

export class TenantObject extends DurableObject<Env> {
  readonly #ledger = new TenantLedger();

  async admit(request: Parameters<TenantLedger["admit"]>[0]): Promise<Admission> {
    return this.#ledger.admit(request, Date.now());
  }

  /** The execution ended: its slot is free. */
  async release(executionId: string): Promise<void> {
    this.#ledger.release(executionId);
  }

  /** An edge isolate's lease of tokens and slots for the fast path. */
  async lease(request: LeaseRequest): Promise<LeaseGrant> {
    return this.#ledger.lease(request, Date.now());
  }

  /** The tenant's executions that run in their own objects now (the live part of the index). */
  async live(): Promise<LiveExecution[]> {
    return this.#ledger.live(Date.now());
  }

  /** An event stream opening or renewing its lease (src/stream/tenant-streams.ts). */
  async openStream(id: string, limit: number, leaseMs: number): Promise<Admission> {
    return this.#ledger.openStream(id, limit, leaseMs, Date.now());
  }

  async closeStream(id: string): Promise<void> {
    this.#ledger.closeStream(id);
  }

  /** Slots held now (for tests and operators). */
  async running(): Promise<number> {
    return this.#ledger.running(Date.now());
  }
}
