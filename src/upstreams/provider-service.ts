/**
 * The dispatch seam of stage 6: the service a planned provider is called through. A native
 * provider is its Worker's service binding (Workers RPC); an upstream MCP server is the
 * adapter, which offers the same `invoke(call, sink)` (src/upstreams/adapter.ts).
 */
import type { ProviderService } from "../../providers/sdk/protocol.ts";
import { providerService } from "../config.ts";
import type { PlannedProvider } from "../execution/dispatch.ts";
import { UpstreamProvider } from "./adapter.ts";

export function serviceFor(env: Env, provider: PlannedProvider): ProviderService | undefined {
  return provider.upstream ? new UpstreamProvider(env, provider.upstream) : providerService(env, provider.binding);
}
