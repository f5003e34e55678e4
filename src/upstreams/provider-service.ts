/**
 * The dispatch seam of stage 6: the service a planned provider is called through. A native
 * provider is its Worker's service binding (Workers RPC); an upstream MCP server is the
 * adapter, which offers the same `invoke(call, sink)` (src/upstreams/adapter.ts).
 *
 * The adapter, and the MCP client under it, load on an isolate's first upstream call: most
 * isolates never call an upstream, and every new isolate would otherwise pay for building the
 * client's schemas (docs/architecture.md#start-up-and-size).
 */
import type {
  ExecutionSink,
  InvokeResult,
  ProviderManifest,
  ProviderService,
  ToolCall,
} from "../../providers/sdk/protocol.ts";
import { providerService } from "../config.ts";
import type { PlannedProvider } from "../execution/execution-plan.ts";
import type { UpstreamTarget } from "./target.ts";

export function serviceFor(env: Env, provider: PlannedProvider): ProviderService | undefined {
  return provider.upstream ? upstreamService(env, provider.upstream) : providerService(env, provider.binding);
}

function upstreamService(env: Env, target: UpstreamTarget): ProviderService {
  const adapter = () => import("./adapter.ts").then(({ UpstreamProvider }) => new UpstreamProvider(env, target));
  return {
    manifest: (): Promise<ProviderManifest> => adapter().then((a) => a.manifest()),
    invoke: (call: ToolCall, sink: ExecutionSink): Promise<InvokeResult> => adapter().then((a) => a.invoke(call, sink)),
  };
}
