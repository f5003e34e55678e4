/**
 * Every authenticated request counts against its tenant's rate, one token each, calls or not:
 * a request that costs the shared parts (the audit store, the tenant's and executions' objects,
 * the registry, the intent verifier) and counts against nothing is a denial of service.
 *
 * A call's token is taken by its admission (src/policy/admission.ts), from the same bucket, so
 * a call is never charged twice; everything else is charged here, once per request, by the
 * face that authenticated it (REST, MCP, Connect, Workers RPC), or, for a dry run, which is a
 * call that is never admitted, by the execution service before any stage that could reach the
 * verifier or a provider. A call refused before admission (malformed, forbidden, invalid
 * input) takes a request token when it is answered: every authenticated request counts.
 *
 * Tokens come from this isolate's lease of the tenant's bucket (src/policy/request-lease.ts):
 * no request to the tenant's object in the common case. Operators are callers of their own
 * tenant like any other: their requests count against that tenant's rate.
 */
import type { Caller } from "../contract.ts";
import { loadConfig } from "../config.ts";
import { RuntimeError } from "../errors.ts";
import { tenantStub } from "../object-stubs.ts";
import { limitsFor } from "./limits.ts";
import { RequestLease } from "./request-lease.ts";

/** This isolate's request leases, one per tenant. */
const leases = new Map<string, RequestLease>();

/** Takes `n` tokens (one per request; one per entry of a JSON-RPC batch); throws `rate_limited` when over the rate. */
export async function chargeRequests(
  env: Env,
  caller: Caller,
  background: (p: Promise<unknown>) => void,
  n = 1,
): Promise<void> {
  if (n <= 0) return;
  const tenant = caller.tenant;
  let lease = leases.get(tenant);
  if (!lease) {
    lease = new RequestLease((request) => tenantStub(env, tenant).leaseRequests(request));
    leases.set(tenant, lease);
  }
  const limits = limitsFor(loadConfig(env).limits, tenant);
  const refused = await lease.take(n, limits, background);
  if (refused) {
    throw new RuntimeError("rate_limited", `over the tenant's limit of ${refused.limit} requests a second`, {
      reason: refused.reason,
      limit: refused.limit,
      retry_after_ms: refused.retry_after_ms,
    });
  }
}
