/**
 * Counts what each execution costs, where it is spent, for the benchmark and the simulation
 * (never shipped: only the metered build in bench/metered/entry.ts uses it):
 *  - per Durable Object class, the requests it receives (RPC methods and alarms) and the rows
 *    it writes (key-value puts and deletes, SQL statements' rows written);
 *  - queue messages sent, and D1 rows written by the audit consumer (into every audit shard).
 * Under wrangler dev every object and the Worker live in one process, so the counts are whole.
 */
import { timed, timedBindings, timingOn } from "./time-meter.ts";

export interface Cost {
  requests: number;
  rows_written: number;
}

const costs = new Map<string, Cost>();

export function costOf(name: string): Cost {
  let c = costs.get(name);
  if (!c) costs.set(name, (c = { requests: 0, rows_written: 0 }));
  return c;
}

export function costSnapshot(): Record<string, Cost> {
  return Object.fromEntries([...costs].map(([k, v]) => [k, { ...v }]));
}

/** Every method of a class's prototype, counted as one request each time it is called. */
export function meterMethods(cls: { prototype: object }, name: string): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const method of Object.getOwnPropertyNames(proto)) {
    if (method === "constructor" || method === "fetch") continue;
    const original = proto[method];
    if (typeof original !== "function") continue;
    proto[method] = function (this: unknown, ...args: unknown[]) {
      costOf(name).requests++;
      costOf(`${name}.${method}`).requests++;
      // Timed inside too: beside the caller's time, the difference is the hop and the output gate.
      return timed(`inside ${name}.${method}`, () => (original as (...a: unknown[]) => unknown).apply(this, args));
    };
  }
}

const bind = (target: object, value: unknown) => (typeof value === "function" ? value.bind(target) : value);

/**
 * Counts every row the object's storage writes against `name`, by wrapping the write methods
 * on the state's own storage objects: the platform refuses a stand-in for the state itself.
 */
export function meterStorage(ctx: DurableObjectState, name: string): void {
  const patch = <T extends object>(target: T, method: string, count: (args: unknown[], result: unknown) => number) => {
    const original = Reflect.get(target, method) as (...a: unknown[]) => unknown;
    Object.defineProperty(target, method, {
      configurable: true,
      value: (...args: unknown[]) => {
        const result = original.apply(target, args);
        costOf(name).rows_written += count(args, result);
        return result;
      },
    });
  };
  patch(ctx.storage.kv, "put", () => 1);
  patch(ctx.storage.kv, "delete", () => 1);
  patch(
    ctx.storage.sql,
    "exec",
    (_args, cursor) => (cursor as SqlStorageCursor<Record<string, SqlStorageValue>>).rowsWritten,
  );
}

/** The metered bindings made so far, per isolate: per environment, caller and timing state. */
const metered = new WeakMap<object, Map<string, Env>>();

/**
 * The bindings as `caller` sees them: queue messages and D1 rows written counted, and every call
 * to an object, a service, the queue or D1 timed (bench/metered/time-meter.ts).
 *
 * Made once per isolate, caller and timing state, not per request: the runtime keeps what it
 * parses from its environment per isolate, keyed by the environment object (its configuration,
 * the upstreams' list, the egress policy, the token key), and a new stand-in per request would
 * have the metered build parse all of it again on every call, which the product does not. The
 * stand-ins hold bindings only, no request's I/O.
 */
export function meteredEnv(env: Env, caller: string): Env {
  let byCaller = metered.get(env);
  if (!byCaller) metered.set(env, (byCaller = new Map()));
  const key = `${caller}\u0000${timingOn()}`;
  let made = byCaller.get(key);
  if (!made) byCaller.set(key, (made = makeMeteredEnv(env, caller)));
  return made;
}

function makeMeteredEnv(env: Env, caller: string): Env {
  const queue = new Proxy(env.AUDIT_QUEUE, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "send")
        return (...args: unknown[]) => (
          costOf("AuditQueue").requests++,
          timed(`${caller} → AUDIT_QUEUE.send`, () => (value as (...a: unknown[]) => unknown).apply(target, args))
        );
      if (prop === "sendBatch")
        return (messages: unknown[], ...rest: unknown[]) => (
          (costOf("AuditQueue").requests += messages.length),
          timed(`${caller} → AUDIT_QUEUE.sendBatch`, () =>
            (value as (...a: unknown[]) => unknown).apply(target, [messages, ...rest]),
          )
        );
      return bind(target, value);
    },
  });
  // Every audit shard (AUDIT_DB, AUDIT_DB_1, …: scripts/audit-shards.ts) counted as the one
  // AuditD1 and timed under one label, so the totals compare with a one-database run's.
  const meterDb = (db: D1Database) =>
    new Proxy(db, {
      get(target, prop) {
        const value = Reflect.get(target, prop);
        if (prop !== "batch") return bind(target, value);
        return async (statements: D1PreparedStatement[]) => {
          const results = await timed(`${caller} → AUDIT_DB.batch`, () =>
            (value as (s: D1PreparedStatement[]) => Promise<D1Result[]>).call(target, statements),
          );
          const d1 = costOf("AuditD1");
          d1.requests++;
          for (const r of results) d1.rows_written += r.meta?.rows_written ?? 0;
          return results;
        };
      },
    });
  const dbs = new Map<string, D1Database>();
  const timedEnv = timedBindings(env, caller);
  return new Proxy(env, {
    get: (target, prop) => {
      if (prop === "AUDIT_QUEUE") return queue;
      if (typeof prop === "string" && AUDIT_SHARD.test(prop)) {
        const db = Reflect.get(target, prop) as D1Database | undefined;
        if (!db) return db;
        let made = dbs.get(prop);
        if (!made) dbs.set(prop, (made = meterDb(db)));
        return made;
      }
      return Reflect.get(timedEnv, prop);
    },
  });
}

/** An audit shard's binding: AUDIT_DB, AUDIT_DB_1, AUDIT_DB_2, … */
const AUDIT_SHARD = /^AUDIT_DB(?:_[1-9]\d*)?$/;
