/**
 * Counts, per isolate, the Durable Object requests each class receives and the SQLite rows
 * it writes, so that the cost of an execution is counted, not guessed (bench/README.md).
 * Under wrangler dev every object of the runtime lives in one isolate, so the counts are
 * whole; in production they are per isolate (a diagnostic, not a metric).
 */
export interface ClassCost {
  requests: number;
  rows_written: number;
}

const costs = new Map<string, ClassCost>();

function costOf(className: string): ClassCost {
  let c = costs.get(className);
  if (!c) costs.set(className, (c = { requests: 0, rows_written: 0 }));
  return c;
}

/** Counts every call of the named methods (the object's RPC surface and its alarm). */
export function meterMethods(cls: { name: string; prototype: object }, methods: readonly string[]): void {
  const proto = cls.prototype as Record<string, unknown>;
  for (const name of methods) {
    const original = proto[name];
    if (typeof original !== "function") throw new Error(`${cls.name}.${name} is not a method`);
    proto[name] = function (this: unknown, ...args: unknown[]) {
      costOf(cls.name).requests++;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
}

/** The object's SQL storage, with every statement's rows written added to its class's count. */
export function meteredSql(sql: SqlStorage, className: string): SqlStorage {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop !== "exec") return Reflect.get(target, prop, receiver);
      return (query: string, ...bindings: unknown[]) => {
        const cursor = target.exec(query, ...bindings);
        costOf(className).rows_written += cursor.rowsWritten;
        return cursor;
      };
    },
  });
}

export function costSnapshot(): Record<string, ClassCost> {
  return Object.fromEntries([...costs].map(([k, v]) => [k, { ...v }]));
}
