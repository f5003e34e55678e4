/**
 * Times where an execution's wall time goes, for the benchmark's account of each path (never
 * shipped: only the metered build in bench/metered/entry.ts uses it). Every call one part of the
 * runtime makes to another — a Durable Object's RPC method, a service binding (a provider, the
 * relay, the verifier), a queue send, a D1 batch — is timed where it is made, from the call to
 * its settling, and summed per "caller → binding.method". Caller-side, so a time includes the
 * hop; nested calls are inside their caller's time (the edge's call to an execution object holds
 * the object's calls to the tenant and the provider). Date.now() in workerd moves only across
 * I/O, which is what these calls are.
 */
export interface Timing {
  calls: number;
  ms: number;
}

const timings = new Map<string, Timing>();

/**
 * Off unless the benchmark turns it on (POST /__bench/time/on) for its account: the wrapping
 * costs CPU on every call, which the throughput rows must not pay.
 */
let on = false;

export function setTiming(value: boolean): void {
  on = value;
}

export const timingOn = (): boolean => on;

export function timingSnapshot(): Record<string, Timing> {
  return Object.fromEntries([...timings].map(([k, v]) => [k, { ...v }]));
}

function timingOf(name: string): Timing {
  let t = timings.get(name);
  if (!t) timings.set(name, (t = { calls: 0, ms: 0 }));
  return t;
}

/** Runs `call`; when it answers a promise, its time to settle is added to `name`. */
export function timed<T>(name: string, call: () => T): T {
  if (!on) return call();
  const t0 = Date.now();
  const result = call();
  // An RPC call answers an RpcPromise, which is callable (typeof "function") for pipelining.
  const then: unknown =
    result !== null && (typeof result === "object" || typeof result === "function")
      ? Reflect.get(result, "then")
      : undefined;
  if (typeof then === "function") {
    const t = timingOf(name);
    t.calls++;
    const done = () => void (t.ms += Date.now() - t0);
    Reflect.apply(then, result, [done, done]);
  }
  return result;
}

/** Properties of a stub that are not calls to time (a stub is never a thenable; `dup` copies it). */
const UNTIMED = new Set(["then", "dup", "constructor"]);

/**
 * A Durable Object stub or service binding whose method calls are timed under `label.method`.
 * A `fetch` settles when the answer's headers come; a streamed answer (an MCP server's event
 * stream) carries its work after them, so its body's end is timed too, from the call
 * (`label.fetch, to the body's end`), by a pass-through stream on the body while timing is on.
 */
export function timedStub<T extends object>(stub: T, label: string): T {
  if (!on) return stub;
  return new Proxy(stub, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof prop !== "string" || UNTIMED.has(prop) || typeof value !== "function") return value;
      if (prop === "fetch")
        return (...args: unknown[]) => {
          const t0 = Date.now();
          const answer = timed(`${label}.fetch`, () => Reflect.apply(value, target, args) as Promise<Response>);
          return answer.then((res) => toBodyEnd(res, `${label}.fetch, to the body's end`, t0));
        };
      return (...args: unknown[]) => timed(`${label}.${prop}`, () => Reflect.apply(value, target, args));
    },
  });
}

/** The same answer, its body's end (read to the last byte) timed from `t0` under `name`. */
function toBodyEnd(res: Response, name: string, t0: number): Response {
  if (!res.body) return res;
  const t = timingOf(name);
  const body = res.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      flush() {
        t.calls++;
        t.ms += Date.now() - t0;
      },
    }),
  );
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A Durable Object namespace whose stubs are timed. */
function timedNamespace<T extends object>(ns: T, label: string): T {
  return new Proxy(ns, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName")
        return (...args: unknown[]) => timedStub(Reflect.apply(value, target, args) as object, label);
      return (...args: unknown[]) => Reflect.apply(value, target, args);
    },
  });
}

/**
 * The bindings as `caller` sees them, every Durable Object namespace and service binding timed
 * (while timing is on when they are handed out: per request, and per object when it is made).
 */
export function timedBindings(env: Env, caller: string): Env {
  if (!on) return env;
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(env, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof prop !== "string" || value === null || (typeof value !== "object" && typeof value !== "function"))
        return value;
      if (!wrapped.has(prop)) {
        const label = `${caller} → ${prop}`;
        wrapped.set(
          prop,
          // A service binding answers every name with a callable (its RPC methods), `idFromName`
          // too; a Durable Object namespace has no `fetch`.
          typeof Reflect.get(value, "fetch") === "function"
            ? timedStub(value, label)
            : typeof Reflect.get(value, "idFromName") === "function"
              ? timedNamespace(value, label)
              : value,
        );
      }
      return wrapped.get(prop);
    },
  });
}
