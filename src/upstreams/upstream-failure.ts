/**
 * An upstream's failure that is the provider's, carrying its classification to
 * `classifyRpcFailure` (src/execution/provider-failure.ts) as a rejected provider RPC would.
 * Apart from src/upstreams/failures.ts, which needs the MCP client's error classes: the
 * credential lookup and the registry's offering use these without loading the client
 * (docs/architecture.md#start-up-and-size).
 */
import type { RpcFailure } from "../execution/provider-failure.ts";

export class UpstreamFailure extends Error {
  readonly failure: RpcFailure;
  constructor(failure: RpcFailure, detail?: string) {
    super(detail ? `${failure.message}: ${detail}` : failure.message);
    this.name = "UpstreamFailure";
    this.failure = failure;
  }
}

/** The tool code of a tenant token the upstream refused. */
export const CREDENTIAL_REFUSED = "upstream_credential_refused";
