/**
 * TenantObject: one Durable Object per tenant, the admission point for its calls — a shell
 * around the pure ledger (src/policy/ledger.ts). Executions that run in their own object take
 * a token and a slot here, one request each; edge isolates lease tokens and slots in bulk for
 * the fast path (src/policy/lease.ts), so most calls cost no request here at all.
 *
 * Why a Durable Object and not the platform's rate-limiting binding: the binding counts per
 * Cloudflare location and only over 10 s or 60 s periods, so it can neither bound a tenant
 * globally nor count concurrent executions. Buckets and slots are in memory on purpose (no
 * storage write on the hot path): if the object restarts, its buckets refill and its slots are
 * forgotten, so for a moment a tenant may get up to one extra burst and one extra
 * `max_concurrent`.
 *
 * What waits is kept in storage (docs/contract.md#waiting), so a restart loses none of it and keeps its order:
 *   "q:<ticket>"  an execution waiting for a slot, in the tenant's waiting line
 *                 (src/policy/waiting-line.ts); `granting` once handed one, kept until it
 *                 gives the slot back: a restart holds that slot again and tells its object
 *                 again (which changes nothing for one already on its way)
 *   "t"           the next ticket
 *   "a:<id>"      a call waiting for a person's approval (GET /v1/approvals)
 * While anything waits or a grant is unconfirmed, one alarm (at most GRANT_RETRY_MS ahead, or
 * at a failed grant's backoff) retries grants and hands on slots whose leases expired.
 */
import { DurableObject } from "cloudflare:workers";
import type { PendingApproval } from "../src/contract.ts";
import { objectStub } from "../src/execution/ids.ts";
import {
  TenantLedger,
  type AdmitRequest,
  type Admission,
  type LeaseGrant,
  type LeaseRequest,
  type LiveExecution,
  type QueuedExecution,
  type Refusal,
  type RequestLeaseRequest,
} from "../src/policy/ledger.ts";
import type { TenantLimits } from "../src/policy/limits.ts";
import { WaitingLine } from "../src/policy/waiting-line.ts";
import { deliverGrants, keepAlarm, type GrantSender } from "./grant-delivery.ts";

/** How soon an undelivered grant is first tried again, and how often a waiting queue is looked at. */
const GRANT_RETRY_MS = 2_000;
/** The longest wait between two tries of one grant (the delay doubles per failure). */
const GRANT_RETRY_MAX_MS = 16_000;

export class TenantObject extends DurableObject<Env> {
  readonly #ledger = new TenantLedger();
  /** Everything under "q:": who waits, who was handed a slot; a taken slot's entry stays until released. */
  readonly #line: WaitingLine<QueuedExecution>;
  readonly #sender: GrantSender<QueuedExecution> = {
    what: "grant",
    send: (e) => objectStub(this.env, e.execution_id).granted(),
    // An object that no longer wants its slot (cancelled meanwhile) gives it back, to the next in line.
    declined: async (e) => {
      this.#ledger.release(e.execution_id, Date.now());
      await this.#afterChange();
    },
  };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#line = new WaitingLine(ctx.storage.kv, {
      prefix: "q:",
      keepTaken: true,
      retryMs: GRANT_RETRY_MS,
      maxRetryMs: GRANT_RETRY_MAX_MS,
    });
    const { waiting, granted, nextTicket } = this.#line.restore();
    this.#ledger.restore(waiting, granted, nextTicket, Date.now());
    // Restored grants are delivered by the alarm, which is set whenever anything waits.
  }

  /** An execution in its own object: a slot now, a place in the queue (`wait`), or a refusal. */
  async admit(request: AdmitRequest): Promise<Admission> {
    const admission = this.#ledger.admit(request, Date.now());
    if (admission.ok && admission.queued) this.#line.wait(admission.queued, this.#ledger.nextTicket);
    await this.#afterChange();
    return admission;
  }

  /** The execution ended or gave up waiting: its slot (or place) goes to the next in line. */
  async release(executionId: string): Promise<void> {
    this.#line.forget(executionId);
    this.#ledger.release(executionId, Date.now());
    await this.#afterChange();
  }

  /** Where an execution stands: its place in the queue (1 is next), 0 with a slot, null unknown. */
  async position(executionId: string): Promise<number | null> {
    const p = this.#ledger.position(executionId, Date.now());
    await this.#afterChange();
    return p ?? null;
  }

  /** An edge isolate's tokens for requests that are not calls (src/policy/request-rate.ts). */
  async leaseRequests(request: RequestLeaseRequest): Promise<{ ok: true; tokens: number } | Refusal> {
    return this.#ledger.leaseRequests(request, Date.now());
  }

  /** An edge isolate's lease of tokens and slots for the fast path. */
  async lease(request: LeaseRequest): Promise<LeaseGrant> {
    const grant = this.#ledger.lease(request, Date.now());
    if (this.#ledger.queued > 0 || this.#line.unsettled) await this.#afterChange();
    return grant;
  }

  /** The tenant's executions that hold a slot, wait for one, or wait for a person (the live part of the index). */
  async live(): Promise<LiveItem[]> {
    const pending = this.#approvals().map((a): LiveItem => ({
      execution_id: a.execution_id,
      status: "awaiting_approval",
      tool: a.tool,
      version: a.version,
      mode: a.mode,
      project: a.project,
      agent: a.agent,
      accepted_at: Date.parse(a.accepted_at),
    }));
    return [...this.#ledger.live(Date.now()), ...pending].sort((a, b) => a.accepted_at - b.accepted_at);
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

  /**
   * A call that must wait for a person (docs/contract.md#waiting): its rate tokens are taken now (unless already paid) and it joins
   * the tenant's pending approvals (at most `max_queued` of them), or it is refused.
   */
  async awaitApproval(pending: PendingApprovalEntry, limits: TenantLimits, paid = false): Promise<Admission> {
    if (this.ctx.storage.kv.get(`a:${pending.execution_id}`)) return { ok: true };
    if (this.#approvals().length >= limits.max_queued)
      return { ok: false, reason: "queue_full", retry_after_ms: 5_000, limit: limits.max_queued };
    // `paid`: the edge took its tokens before level 2 (src/policy/admission.ts `chargeCall`).
    const accepted: Admission = paid ? { ok: true } : this.#ledger.accept({ tool: pending.tool, limits }, Date.now());
    if (accepted.ok) this.ctx.storage.kv.put(`a:${pending.execution_id}`, pending);
    return accepted;
  }

  /** The calls waiting for a person's decision, oldest first (expired ones are left out). */
  async approvals(): Promise<PendingApprovalEntry[]> {
    return this.#approvals();
  }

  /** Dropped from the pending approvals: decided, cancelled or expired. */
  async approvalDone(executionId: string): Promise<void> {
    this.ctx.storage.kv.delete(`a:${executionId}`);
  }

  async alarm(): Promise<void> {
    // Expired leases hand their slots on inside the ledger; undelivered grants go again.
    this.#ledger.position("", Date.now());
    await this.#afterChange();
  }

  #approvals(): PendingApprovalEntry[] {
    const now = Date.now();
    const out: PendingApprovalEntry[] = [];
    for (const [key, a] of this.ctx.storage.kv.list<PendingApprovalEntry>({ prefix: "a:" })) {
      if (Date.parse(a.expires_at) <= now) this.ctx.storage.kv.delete(key);
      else out.push(a);
    }
    return out.sort((a, b) => Date.parse(a.accepted_at) - Date.parse(b.accepted_at));
  }

  /**
   * New grants are stored (marked `granting` first, so a restart in between hands the slot
   * again), every one due is sent, and the alarm is kept while anything waits.
   */
  async #afterChange(): Promise<void> {
    for (const g of this.#ledger.takeGrants()) this.#line.grant(g);
    deliverGrants(this.#line, this.#sender);
    await keepAlarm(this.ctx.storage, this.#line.nextAlarm(Date.now()));
  }
}

/** A pending approval as the tenant's object keeps it. */
export type PendingApprovalEntry = PendingApproval & { mode: string };

/** One row of the live part of the execution index. */
export type LiveItem = Omit<LiveExecution, "expires" | "status"> & {
  status: LiveExecution["status"] | "awaiting_approval";
  expires?: number;
};
