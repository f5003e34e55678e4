/**
 * This isolate's tokens for one tenant's requests that are not calls, leased from the tenant's
 * ledger in batches as calls' tokens are (src/policy/lease.ts) and with the same bound: a token
 * is spent within TOKEN_TTL_MS of its grant or given back, so over-admission is at most one
 * TOKEN_TTL_MS of the tenant's rate, whatever the number of isolates. No slots: such a request
 * holds nothing while it runs (an event stream holds a stream slot of its own). Pure but for
 * the injected `ask` and clock.
 */
import type { Refusal, RequestLeaseRequest } from "./ledger.ts";
import { TOKEN_TTL_MS } from "./lease.ts";
import type { TenantLimits } from "./limits.ts";

export type AskRequests = (request: RequestLeaseRequest) => Promise<{ ok: true; tokens: number } | Refusal>;

/** A quarter second of the tenant's rate at once (at least 1, at most 100). */
export function requestBatch(limits: TenantLimits): number {
  return Math.max(1, Math.min(100, Math.ceil(limits.requests_per_second / 4)));
}

export class RequestLease {
  /** Leased tokens in batches, oldest first, each good until its own expiry. */
  #batches: { n: number; expires: number }[] = [];
  #unspent = 0;
  #topping = false;
  readonly #ask: AskRequests;
  readonly #now: () => number;

  constructor(ask: AskRequests, now: () => number = Date.now) {
    this.#ask = ask;
    this.#now = now;
  }

  /**
   * Spends `n` tokens now (a JSON-RPC batch spends one per entry), or says why not. Asks the
   * ledger only when the lease cannot serve, and then for what this request needs alone
   * (Workers refuses one request awaiting another's I/O); top-ups run in the background.
   */
  async take(n: number, limits: TenantLimits, background: (p: Promise<unknown>) => void): Promise<Refusal | undefined> {
    if (this.#available() < n) {
      const refused = await this.#request(n, n, limits);
      if (refused) return refused;
      if (this.#available() < n)
        return { ok: false, reason: "rate", retry_after_ms: 1_000, limit: limits.requests_per_second };
    }
    this.#spend(n);
    if (this.#available() < Math.ceil(requestBatch(limits) / 2) && !this.#topping) {
      this.#topping = true;
      background(
        this.#request(requestBatch(limits), 1, limits)
          .then(
            () => undefined,
            (err) => console.warn(JSON.stringify({ msg: "request lease top-up failed", error: String(err) })),
          )
          .finally(() => (this.#topping = false)),
      );
    }
    return undefined;
  }

  #available(): number {
    const now = this.#now();
    while (this.#batches.length > 0 && this.#batches[0].expires <= now) this.#unspent += this.#batches.shift()!.n;
    return this.#batches.reduce((sum, b) => sum + b.n, 0);
  }

  #spend(n: number): void {
    while (n > 0) {
      const head = this.#batches[0];
      const taken = Math.min(n, head.n);
      head.n -= taken;
      n -= taken;
      if (head.n === 0) this.#batches.shift();
    }
  }

  async #request(want: number, need: number, limits: TenantLimits): Promise<Refusal | undefined> {
    const have = this.#available();
    const giveBack = this.#unspent;
    this.#unspent = 0;
    const grant = await this.#ask({
      tokens: Math.max(1, want - have),
      need: Math.max(0, need - have),
      give_back: giveBack,
      limits,
    });
    if (!grant.ok) return grant;
    if (grant.tokens > 0) this.#batches.push({ n: grant.tokens, expires: this.#now() + TOKEN_TTL_MS });
    return undefined;
  }
}
