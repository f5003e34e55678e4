/**
 * A durable waiting line (docs/contract.md#waiting): the tickets of executions waiting for
 * something an owner hands out — a tenant's slot (TenantObject over ledger.ts) or a provider's
 * permit (ProviderGate over provider-capacity.ts) — and the delivery of each grant to its
 * waiter. The owner decides who is served and in what order; the line keeps what must survive
 * a restart and knows which grants still have to be told.
 *
 * Each waiter is one stored entry, `<prefix><ticket>` (the ticket zero-padded, so storage lists
 * them in ticket order), and `t` holds the next ticket. A grant is stored (`granting: true`)
 * before its waiter is told, so a restart in between hands it again; telling twice changes
 * nothing for a waiter already on its way. A waiter answers `true` (it took the grant) or
 * `false` (it no longer wants it: the owner takes the grant back). A delivery that fails is
 * tried again after a backoff — `retryMs`, doubled per failure up to `maxRetryMs` — by the
 * owner's alarm, pointed at `nextAlarm`.
 *
 * Pure apart from the storage it is given: a Durable Object's synchronous `ctx.storage.kv`
 * fits `LineStorage`, and so does a Map-backed store in tests. Sending is the shell's part
 * (durable-objects/grant-delivery.ts).
 */

/** The synchronous key-value storage the line writes through (a Durable Object's `ctx.storage.kv`). */
export interface LineStorage {
  get<T = unknown>(key: string): T | undefined;
  put<T>(key: string, value: T): void;
  delete(key: string): boolean;
  list<T = unknown>(options: { prefix: string }): Iterable<[string, T]>;
}

/** What every waiter carries; the owner adds what it needs to restore its own state. */
export interface Waiter {
  execution_id: string;
  ticket: number;
}

/** A waiter as stored: `granting` once it was handed its grant. */
export type StoredWaiter<T extends Waiter> = T & { granting?: boolean };

export interface WaitingLineOptions {
  /** The key prefix of its entries ("q:" for a tenant's queue, "w:" for a gate's waiters). */
  prefix: string;
  /**
   * Whether a grant the waiter took stays stored until the owner `forget`s it (a tenant's
   * slot: a restart must know it is held) or is forgotten at once (a gate stores its permits
   * itself).
   */
  keepTaken: boolean;
  /** The first retry's delay, and how often the alarm comes while anyone waits. */
  retryMs: number;
  /** The longest delay between two tries of one grant. */
  maxRetryMs: number;
}

/** The key of the next ticket. */
export const TICKET_KEY = "t";

/** What a restarted line holds: waiters in ticket order, grants not yet forgotten, the next ticket. */
export interface RestoredLine<T extends Waiter> {
  waiting: T[];
  granted: T[];
  nextTicket: number;
}

export class WaitingLine<T extends Waiter> {
  readonly #kv: LineStorage;
  readonly #o: WaitingLineOptions;
  /** Every stored entry, by execution. */
  readonly #entries = new Map<string, StoredWaiter<T>>();
  /** Grants being sent now (in memory: a restart sends them again). */
  readonly #sending = new Set<string>();
  /** Grants the waiter took, kept stored until forgotten (`keepTaken` only). */
  readonly #taken = new Set<string>();
  /** Grants whose delivery failed: how often, and when they are due again. */
  readonly #retries = new Map<string, { failures: number; at: number }>();

  constructor(storage: LineStorage, options: WaitingLineOptions) {
    this.#kv = storage;
    this.#o = options;
  }

  /** Reads the stored line (once, when the owner starts): every grant in it is due for delivery. */
  restore(): RestoredLine<T> {
    const waiting: T[] = [];
    const granted: T[] = [];
    for (const [, e] of this.#kv.list<StoredWaiter<T>>({ prefix: this.#o.prefix })) {
      this.#entries.set(e.execution_id, e);
      (e.granting ? granted : waiting).push(e);
    }
    const byTicket = (a: T, b: T) => a.ticket - b.ticket;
    return {
      waiting: waiting.sort(byTicket),
      granted: granted.sort(byTicket),
      nextTicket: this.#kv.get<number>(TICKET_KEY) ?? 1,
    };
  }

  has(executionId: string): boolean {
    return this.#entries.has(executionId);
  }

  /** Entries stored now (waiting, granted, and taken ones kept). */
  get size(): number {
    return this.#entries.size;
  }

  /** True while anyone waits or a grant is not yet taken: the owner's alarm must stay. */
  get unsettled(): boolean {
    return this.#entries.size > this.#taken.size;
  }

  /** A new waiter joins (ignored when already in line), and the ticket counter moves on. */
  wait(waiter: T, nextTicket: number): void {
    if (this.#entries.has(waiter.execution_id)) return;
    this.#put(waiter);
    this.#kv.put(TICKET_KEY, nextTicket);
  }

  /** The owner handed `waiter` its grant: stored as such before anyone is told. */
  grant(waiter: T): void {
    this.#taken.delete(waiter.execution_id);
    this.#retries.delete(waiter.execution_id);
    this.#put({ ...waiter, granting: true });
  }

  /** The waiter is gone (released, left the line, or declined): its entry goes. */
  forget(executionId: string): void {
    const e = this.#entries.get(executionId);
    this.#sending.delete(executionId);
    this.#taken.delete(executionId);
    this.#retries.delete(executionId);
    if (!e) return;
    this.#entries.delete(executionId);
    this.#kv.delete(this.#key(e.ticket));
  }

  /**
   * The grants to send now — not taken, not being sent, and past their retry time — each
   * marked as being sent until `answered` or `failed`.
   */
  due(now: number): T[] {
    const out: T[] = [];
    for (const e of this.#entries.values()) {
      const id = e.execution_id;
      if (!e.granting || this.#sending.has(id) || this.#taken.has(id)) continue;
      if ((this.#retries.get(id)?.at ?? 0) > now) continue;
      this.#sending.add(id);
      out.push(e);
    }
    return out;
  }

  /**
   * The waiter answered: it took the grant (kept or forgotten, per `keepTaken`) or declined it
   * (forgotten; the owner takes the grant back — even when the line had already forgotten it).
   */
  answered(executionId: string, taken: boolean): void {
    this.#sending.delete(executionId);
    this.#retries.delete(executionId);
    if (!taken || !this.#o.keepTaken) return this.forget(executionId);
    if (this.#entries.has(executionId)) this.#taken.add(executionId);
  }

  /** The grant could not be delivered: due again after a backoff. Returns when. */
  failed(executionId: string, now: number): number {
    this.#sending.delete(executionId);
    const failures = (this.#retries.get(executionId)?.failures ?? 0) + 1;
    const at = now + Math.min(this.#o.retryMs * 2 ** (failures - 1), this.#o.maxRetryMs);
    if (this.#entries.has(executionId)) this.#retries.set(executionId, { failures, at });
    return at;
  }

  /**
   * When the owner's alarm must come for the line, or undefined when nothing is unsettled:
   * within `retryMs` while anyone waits or a grant is on its way (or not yet sent), else at the
   * earliest retry.
   */
  nextAlarm(now: number): number | undefined {
    let due: number | undefined;
    for (const e of this.#entries.values()) {
      const id = e.execution_id;
      if (this.#taken.has(id)) continue;
      const retry = this.#retries.get(id);
      const at = e.granting && retry && !this.#sending.has(id) ? retry.at : now + this.#o.retryMs;
      due = due === undefined ? at : Math.min(due, at);
    }
    return due;
  }

  #put(e: StoredWaiter<T>): void {
    this.#entries.set(e.execution_id, e);
    this.#kv.put(this.#key(e.ticket), e);
  }

  #key(ticket: number): string {
    return `${this.#o.prefix}${String(ticket).padStart(12, "0")}`;
  }
}
