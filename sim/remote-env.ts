/**
 * The `Env` a simulated isolate runs the edge's real code with. Vars are the runtime's own
 * (read from wrangler.jsonc by sim/run.ts); every Durable Object binding is a namespace whose
 * stubs send each method call to the simulation's gateway Worker (sim/gateway), which makes
 * the same call on the real object. So the real object receives one request per RPC call
 * the edge code makes, as it would in production, and `onCall` sees each one leave.
 */

export type OnCall = (binding: string, method: string) => void;

/** A request the local stack has not answered by then has failed (bounded, like every wait here). */
const RPC_TIMEOUT_MS = 10_000;

/** Durable Object bindings the gateway exposes (sim/gateway/src/index.ts). */
export const REMOTE_BINDINGS = ["REGISTRY", "TENANTS", "HEALTH", "SNAPSHOT_RELAY"] as const;

export function remoteEnv(gateway: string, vars: Record<string, unknown>, onCall: OnCall): Env {
  const bindings = Object.fromEntries(REMOTE_BINDINGS.map((b) => [b, remoteNamespace(gateway, b, onCall)]));
  return { ...vars, ...bindings } as unknown as Env;
}

function remoteNamespace(gateway: string, binding: string, onCall: OnCall) {
  return {
    idFromName: (name: string) => ({ name, toString: () => name }),
    get: (id: { name: string }) => remoteStub(gateway, binding, id.name, onCall),
  };
}

function remoteStub(gateway: string, binding: string, name: string, onCall: OnCall): unknown {
  return new Proxy(
    {},
    {
      get(_target, method) {
        // Not a thenable, and no symbol-named methods: only RPC method names become calls.
        if (typeof method !== "string" || method === "then") return undefined;
        return async (...args: unknown[]) => {
          onCall(binding, method);
          const res = await fetch(`${gateway}/sim/rpc`, {
            method: "POST",
            body: JSON.stringify({ binding, name, method, args }),
            signal: AbortSignal.timeout(RPC_TIMEOUT_MS),
          });
          const text = await res.text();
          // An overloaded local stack answers with plain text (e.g. workerd's "Network connection lost").
          const body = (
            res.headers.get("content-type")?.includes("json")
              ? JSON.parse(text)
              : { ok: false, error: `HTTP ${res.status} ${text.slice(0, 80)}` }
          ) as { ok: boolean; value?: unknown; error?: string };
          if (!body.ok) throw new Error(`${binding}.${method}: ${body.error}`);
          return body.value;
        };
      },
    },
  );
}
