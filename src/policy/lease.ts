/**
 * Admission without round trips (the fast path): each isolate leases tokens and slots from a
 * tenant's ledger in small batches and spends them locally, refilling in the background before
 * they run out. Every token and slot still comes from the one ledger, so:
 *  - concurrency is never exceeded while the tenant's object lives (a slot has one holder);
 *  - a leased token is spent within TOKEN_TTL_MS of its grant or given back unspent, so the
 *    tenant's calls in any window of T seconds stay within burst + rate × (T + TOKEN_TTL_MS):
 *    the worst-case over-admission is one TOKEN_TTL_MS of the tenant's rate, whatever the
 *    number of isolates;
 *  - the price is under-admission: tokens and idle slots parked in one isolate for a moment.
 * Pure but for the injected `ask` (the RPC to the ledger) and clock.
 */
import type { LeaseGrant, LeaseRequest, Refusal } from "./ledger.ts";
import type { TenantLimits } from "./limits.ts";

/** Leased tokens are good this long; unspent ones are dropped. */
export const TOKEN_TTL_MS = 1_000;
/** Leased slots are held this long unless renewed. */
export const SLOT_LEASE_MS = 10_000;
/** Idle slots go back to the ledger after this long unused. */
export const IDLE_RETURN_MS = 250;

export type Ask = (request: LeaseRequest) => Promise<LeaseGrant>;

/** A fast-path call's admission: hand it back when the provider call has returned. */
export interface Ticket {
  release(): void;
}

/** How many tokens to ask for at once: a quarter second of the tenant's rate (at least 1, at most 100). */
export function tokenBatch(limits: TenantLimits): number {
  return Math.max(
    1,
    Math.min(100, Math.ceil(Math.min(limits.requests_per_second, limits.tool_requests_per_second) / 4)),
  );
}

/** How many spare slots to hold: an eighth of the tenant's concurrency (at least 1). */
export function slotBatch(limits: TenantLimits): number {
  return Math.max(1, Math.ceil(limits.max_concurrent / 8));
}

export class TenantLease {
  readonly id = crypto.randomUUID();
  /** Leased tokens per tool, in batches oldest first, each good until its own expiry. */
  #batches = new Map<string, { n: number; expires: number }[]>();
  /** Tokens that expired unspent, per tool: given back with the next request for that tool. */
  #unspent = new Map<string, number>();
  #slots = 0;
  #inUse = 0;
  #slotsExpire = 0;
  #topping = false;
  /** Counts admissions, so an idle check can tell whether anything happened since. */
  #generation = 0;
  readonly #ask: Ask;
  readonly #now: () => number;

  constructor(ask: Ask, now: () => number = Date.now) {
    this.#ask = ask;
    this.#now = now;
  }

  /**
   * Admits one call now, or says why not. Asks the ledger only when the lease cannot serve;
   * a call that must wait for the ledger asks on its own (Workers refuses one request awaiting
   * another request's I/O), so only background top-ups are shared.
   */
  async admit(
    tool: string,
    limits: TenantLimits,
    background: (p: Promise<unknown>) => void,
  ): Promise<Ticket | Refusal> {
    if (!this.#canServe(tool)) {
      // Only what this call needs: a batch asked for while others are refused would be wasted.
      let refused = await this.#request(tool, limits, 1, true);
      // The token it held expired while the ledger answered (the ask took none): ask once more,
      // giving it back, rather than refuse and send the call to take a second token elsewhere.
      if (!refused && this.#available(tool) < 1) refused = await this.#request(tool, limits, 1, true);
      if (!this.#canServe(tool))
        return refused ?? { ok: false, reason: "concurrency", retry_after_ms: 1_000, limit: limits.max_concurrent };
    }
    this.#spend(tool);
    this.#inUse++;
    this.#generation++;
    // Running low: top up in the background so the next call does not wait.
    if (
      this.#available(tool) < Math.ceil(tokenBatch(limits) / 2) ||
      this.#inUse >= this.#slots ||
      this.#slotsExpire - this.#now() < SLOT_LEASE_MS / 2
    ) {
      background(this.#refill(tool, limits));
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#inUse--;
        if (this.#inUse === 0) this.#scheduleReturn(tool, limits, background);
      },
    };
  }

  /**
   * Spends one of the tool's tokens without a slot: a call that runs in its own object, charged
   * here before it reaches the verifier, and admitted there as already paid. Asks the ledger
   * for a token only (no spare slots: an idle one parked here would keep an object waiting).
   */
  async spendToken(
    tool: string,
    limits: TenantLimits,
    background: (p: Promise<unknown>) => void,
  ): Promise<Refusal | undefined> {
    if (this.#available(tool) < 1) {
      const refused = await this.#request(tool, limits, 1, false, this.#slots);
      if (refused) return refused;
      if (this.#available(tool) < 1)
        return { ok: false, reason: "rate", retry_after_ms: 1_000, limit: limits.requests_per_second };
    }
    this.#spend(tool);
    if (this.#available(tool) < Math.ceil(tokenBatch(limits) / 2)) background(this.#refill(tool, limits, this.#slots));
    return undefined;
  }

  get inUse(): number {
    return this.#inUse;
  }

  get slots(): number {
    return this.#slots;
  }

  #canServe(tool: string): boolean {
    return this.#available(tool) >= 1 && this.#inUse < this.#slots && this.#slotsExpire > this.#now();
  }

  /** Unexpired leased tokens for a tool; expired ones move to the give-back count. */
  #available(tool: string): number {
    const now = this.#now();
    const batches = this.#batches.get(tool) ?? [];
    while (batches.length > 0 && batches[0].expires <= now) {
      const gone = batches.shift()!;
      this.#unspent.set(tool, (this.#unspent.get(tool) ?? 0) + gone.n);
    }
    return batches.reduce((sum, b) => sum + b.n, 0);
  }

  /** Spends one token from the oldest batch. */
  #spend(tool: string): void {
    const batches = this.#batches.get(tool)!;
    batches[0].n--;
    if (batches[0].n === 0) batches.shift();
  }

  /** A background top-up, one at a time; nobody waits for it. */
  #refill(tool: string, limits: TenantLimits, slots?: number): Promise<void> {
    if (this.#topping) return Promise.resolve();
    this.#topping = true;
    return this.#request(tool, limits, tokenBatch(limits), false, slots)
      .then(
        () => undefined,
        (err) => console.warn(JSON.stringify({ msg: "lease top-up failed", error: String(err) })),
      )
      .finally(() => (this.#topping = false));
  }

  /**
   * One request to the ledger for up to `want` tokens in all; returns its refusal, if it
   * refused. `slots`: what the lease asks to hold afterwards (by default in use plus a batch).
   */
  async #request(
    tool: string,
    limits: TenantLimits,
    want: number,
    needSlot: boolean,
    slots?: number,
  ): Promise<Refusal | undefined> {
    const now = this.#now();
    const have = this.#available(tool); // also moves expired batches to the give-back count
    const giveBack = this.#unspent.get(tool) ?? 0;
    this.#unspent.delete(tool);
    const grant = await this.#ask({
      lease_id: this.id,
      tool,
      // Only the tokens it lacks: a lease that holds a token and needs a slot asks for none, so
      // a tenant whose bucket is empty is not refused a call its lease can already pay for.
      tokens: Math.max(0, want - have),
      give_back: giveBack,
      slots: slots ?? this.#inUse + slotBatch(limits),
      in_use: this.#inUse,
      need_slot: needSlot && this.#inUse >= this.#slots,
      lease_ms: SLOT_LEASE_MS,
      limits,
    });
    const at = this.#now();
    if (!grant.ok) return grant;
    // A batch of its own, with its own expiry: a top-up never makes older tokens live longer.
    if (grant.tokens > 0)
      this.#batches.set(tool, [...(this.#batches.get(tool) ?? []), { n: grant.tokens, expires: at + TOKEN_TTL_MS }]);
    this.#slots = grant.slots;
    this.#slotsExpire = grant.expires_at - (at - now);
    return undefined;
  }

  /**
   * Gives idle slots back so other holders (another isolate, an async execution) can use them,
   * once the lease has stayed idle for IDLE_RETURN_MS. The wait belongs to the request whose
   * call ended (its `background`); a later call simply makes it find the lease busy.
   */
  #scheduleReturn(tool: string, limits: TenantLimits, background: (p: Promise<unknown>) => void): void {
    const generation = this.#generation;
    background(
      new Promise((resolve) => setTimeout(resolve, IDLE_RETURN_MS)).then(async () => {
        if (this.#generation !== generation || this.#inUse > 0 || this.#slots === 0) return;
        this.#slots = 0;
        this.#available(tool);
        const giveBack = this.#unspent.get(tool) ?? 0;
        this.#unspent.delete(tool);
        await this.#ask({
          lease_id: this.id,
          tool,
          tokens: 0,
          give_back: giveBack,
          slots: 0,
          in_use: 0,
          need_slot: false,
          lease_ms: SLOT_LEASE_MS,
          limits,
        }).catch(() => {}); // the lease expires by itself
      }),
    );
  }
}
