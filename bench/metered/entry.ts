/**
 * The runtime Worker as the benchmark and the simulation run it: the product's own entry
 * (src/index.ts) with every Durable Object class metered (bench/metered/cost-meter.ts) and the
 * counters served at GET /__bench/cost. Nothing here ships: `npm run deploy` and `npm start`
 * use src/index.ts; bench/metered/config.ts writes the wrangler config that points here.
 */
import worker, * as product from "../../src/index.ts";
import { costSnapshot, meteredEnv, meterMethods, meterStorage } from "./cost-meter.ts";
import { setTiming, timedStub, timingOn, timingSnapshot } from "./time-meter.ts";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a mixin's constructor must take any[]
function metered<T extends new (...args: any[]) => object>(cls: T, name: string): T {
  meterMethods(cls, name);
  return class extends cls {
    constructor(...args: any[]) {
      const ctx = args[0] as DurableObjectState;
      meterStorage(ctx, name);
      timeExports(ctx, name);
      super(ctx, meteredEnv(args[1] as Env, name));
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

/**
 * The Worker's own entrypoints as an object reaches them (`ctx.exports`: the provider relay),
 * timed. The relay is exported below: without it an object would call its provider directly,
 * and the benchmark would measure a path the product does not take.
 */
function timeExports(ctx: DurableObjectState, name: string): void {
  // An object made while timing is off (every execution object of the throughput rows) keeps its own.
  if (!timingOn()) return;
  const exports: unknown = Reflect.get(ctx, "exports");
  if (exports === null || typeof exports !== "object") return;
  const timed = new Proxy(exports, {
    get: (target, prop) => {
      const value: unknown = Reflect.get(target, prop);
      return typeof prop === "string" && value !== null && (typeof value === "object" || typeof value === "function")
        ? timedStub(value, `${name} → exports.${prop}`)
        : value;
    },
  });
  try {
    Object.defineProperty(ctx, "exports", { value: timed, configurable: true });
  } catch (err) {
    console.warn(JSON.stringify({ msg: "bench: ctx.exports not timed", error: String(err) }));
  }
}

export class ToolRuntime extends product.ToolRuntime {
  constructor(ctx: ExecutionContext, env: Env) {
    super(ctx, meteredEnv(env, "rpc"));
  }
}

export class ProviderRelay extends product.ProviderRelay {
  constructor(ctx: ExecutionContext, env: Env) {
    super(ctx, meteredEnv(env, "relay"));
  }
}

export default {
  fetch(request: Request<unknown, IncomingRequestCfProperties>, env: Env, ctx: ExecutionContext) {
    const path = new URL(request.url).pathname;
    if (path === "/__bench/cost") return Response.json(costSnapshot());
    if (path === "/__bench/time") return Response.json(timingSnapshot());
    if (path === "/__bench/time/on" || path === "/__bench/time/off") {
      setTiming(path.endsWith("/on"));
      return new Response(null, { status: 204 });
    }
    return worker.fetch(request, meteredEnv(env, "edge"), ctx);
  },
  queue(batch: MessageBatch<never>, env: Env) {
    return worker.queue(batch, meteredEnv(env, "consumer"));
  },
  tail(events: TraceItem[], env: Env) {
    return worker.tail(events, meteredEnv(env, "tail"));
  },
} satisfies ExportedHandler<Env, never>;
