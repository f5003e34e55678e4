/**
 * A D1 database that counts what passes through it, as D1 bills and limits it: rows written
 * (`meta.rows_written` of every statement, index entries included), requests (a batch is one;
 * so is each statement run on its own: `first`, `all`, `run`, `raw`) and the database's size
 * (`meta.size_after` of the last answer). Statements are wrapped to count their own requests and
 * handed back unwrapped to `batch`. For sim/audit/worker.ts: the consumer sees a D1Database.
 */
export interface Counter {
  rows: number;
  requests: number;
  batches: number;
  /** Rows written by table (the first table a statement names after INTO, UPDATE or FROM). */
  tables: Record<string, number>;
}

export function counted(db: D1Database, c: Counter): D1Database {
  const real = new WeakMap<object, { s: D1PreparedStatement; table: string }>();
  const note = (meta: D1Meta | undefined, table: string) => {
    const n = meta?.rows_written ?? 0;
    c.rows += n;
    if (n > 0) c.tables[table] = (c.tables[table] ?? 0) + n;
  };
  const wrap = (s: D1PreparedStatement, table: string): D1PreparedStatement => {
    const w = {
      bind: (...values: unknown[]) => wrap(s.bind(...values), table),
      // No meta: the consumer's `first` is the drills' DELETE … RETURNING, which writes only when a drill is armed.
      first: (column?: string) => {
        c.requests++;
        return column === undefined ? s.first() : s.first(column);
      },
      run: async () => {
        c.requests++;
        const r = await s.run();
        note(r.meta, table);
        return r;
      },
      all: async () => {
        c.requests++;
        const r = await s.all();
        note(r.meta, table);
        return r;
      },
      raw: (options?: { columnNames?: boolean }) => {
        c.requests++;
        return s.raw(options as { columnNames: true });
      },
    };
    real.set(w, { s, table });
    return w as unknown as D1PreparedStatement;
  };
  return {
    prepare: (sql: string) => wrap(db.prepare(sql), /(?:INTO|UPDATE|FROM)\s+(\w+)/i.exec(sql)?.[1] ?? "?"),
    batch: async <T>(statements: D1PreparedStatement[]) => {
      c.requests++;
      c.batches++;
      const results = await db.batch<T>(statements.map((s) => real.get(s)?.s ?? s));
      results.forEach((r, i) => note(r.meta, real.get(statements[i])?.table ?? "?"));
      return results;
    },
    exec: (sql: string) => {
      c.requests++;
      return db.exec(sql);
    },
    withSession: () => {
      throw new Error("the audit consumer opens no session");
    },
    dump: () => db.dump(),
  } as unknown as D1Database;
}
