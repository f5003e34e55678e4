/**
 * One tenant's ledger, several isolates' leases of it, and a clock only the test moves: the
 * world of the lease tests (lease.test.ts: calls' tokens and slots; request-lease.test.ts:
 * every other request's tokens).
 */
import { TenantLedger } from "../../../src/policy/ledger.ts";
import { DEFAULT_TENANT_LIMITS, type TenantLimits } from "../../../src/policy/limits.ts";

/** `lease(ask, now)` makes one isolate's lease; `answer(ledger, request, now)` is the ledger's side of its ask. */
export function ledgerWorld<Request, Answer, Lease>(
  limits: Partial<TenantLimits>,
  isolates: number,
  answer: (ledger: TenantLedger, request: Request, now: number) => Answer,
  lease: (ask: (r: Request) => Promise<Answer>, now: () => number) => Lease,
) {
  let now = 1_000_000;
  const ledger = new TenantLedger();
  const asks: Request[] = [];
  const leases = Array.from({ length: isolates }, () =>
    lease(
      async (r) => (asks.push(r), answer(ledger, r, now)),
      () => now,
    ),
  );
  const pending: Promise<unknown>[] = [];
  return {
    limits: { ...DEFAULT_TENANT_LIMITS, ...limits },
    ledger,
    leases,
    asks,
    advance: (ms: number) => (now += ms),
    now: () => now,
    background: (p: Promise<unknown>) => void pending.push(p),
    settle: async () => {
      while (pending.length) await pending.shift();
    },
  };
}
