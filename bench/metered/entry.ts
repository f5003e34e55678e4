/**
 * The runtime Worker as the benchmark and the simulation run it: the product's own entry
 * (src/index.ts) with every Durable Object class metered (bench/metered/cost-meter.ts) and the
 * counters served at GET /__bench/cost. Nothing here ships: `npm run deploy` and `npm start`
 * use src/index.ts; bench/metered/config.ts writes the wrangler config that points here.
 */
import worker, * as product from "../../src/index.ts";
import { costSnapshot, meteredEnv, meterMethods, meterStorage } from "./cost-meter.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's constructor must take any[]
function metered<T extends new (...args: any[]) => object>(cls: T, name: string): T {
  meterMethods(cls, name);
  return class extends cls {
    constructor(...args: any[]) {
      meterStorage(args[0] as DurableObjectState, name);
      super(args[0], meteredEnv(args[1] as Env));
    }
  };
}

export const ExecutionObject = metered(product.ExecutionObject, "ExecutionObject");
export const RegistryObject = metered(product.RegistryObject, "RegistryObject");
export const HealthObject = metered(product.HealthObject, "HealthObject");
export const SnapshotRelayObject = metered(product.SnapshotRelayObject, "SnapshotRelayObject");
export const TenantObject = metered(product.TenantObject, "TenantObject");
export const AuditOutboxObject = metered(product.AuditOutboxObject, "AuditOutboxObject");
export const UpstreamCredentialObject = metered(product.UpstreamCredentialObject, "UpstreamCredentialObject");
export const ProviderGate = metered(product.ProviderGate, "ProviderGate");

export class ToolRuntime extends product.ToolRuntime {
  constructor(ctx: ExecutionContext, env: Env) {
    super(ctx, meteredEnv(env));
  }
}

export default {
  fetch(request: Request<unknown, IncomingRequestCfProperties>, env: Env, ctx: ExecutionContext) {
    if (new URL(request.url).pathname === "/__bench/cost") return Response.json(costSnapshot());
    return worker.fetch(request, meteredEnv(env), ctx);
  },
  queue(batch: MessageBatch<never>, env: Env) {
    return worker.queue(batch, meteredEnv(env));
  },
  tail(events: TraceItem[], env: Env) {
    return worker.tail(events, meteredEnv(env));
  },
} satisfies ExportedHandler<Env, never>;
