/**
 * An upstream's failure that is the provider's, carrying its classification to
 * `classifyRpcFailure` (src/execution/provider-failure.ts) as a rejected provider RPC would.
 * Apart from src/upstreams/failures.ts, which needs the MCP client's error classes: the
 * credential lookup and the registry's offering use these without loading the client
 * (docs/architecture.md#start-up-and-size).
 */
import type { CallerRefusal, RpcFailure } from "../execution/provider-failure.ts";

export class UpstreamFailure extends Error {
  readonly failure: RpcFailure;
  constructor(failure: RpcFailure, detail?: string) {
    super(detail ? `${failure.message}: ${detail}` : failure.message);
    this.name = "UpstreamFailure";
    this.failure = failure;
  }
}

/**
 * A call the upstream turned down for the caller's own reason (its arguments, its tenant's
 * token): the call fails with the refusal's code and the upstream's health does not move.
 * Read by `callerRefusalOf` (src/execution/provider-failure.ts) by its class name.
 */
export class UpstreamRefusal extends Error {
  readonly refusal: CallerRefusal;
  constructor(refusal: CallerRefusal) {
    super(refusal.message);
    this.name = "UpstreamRefusal";
    this.refusal = refusal;
  }
}

/** The tool code of a tenant token the upstream refused (HTTP 401 or 403). */
export const CREDENTIAL_REFUSED = "upstream_credential_refused";
/** The tool code of any other non-2xx answer to a call made with the tenant's own token. */
export const TENANT_CALL_REFUSED = "upstream_refused";
