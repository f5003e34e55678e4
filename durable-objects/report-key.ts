/**
 * The deployment's key for CPU-report nonces (src/audit/report-nonce.ts): 256 random bits,
 * made the first time it is asked for and kept in the registry object's SQLite, the
 * deployment's one global object, so that every isolate (the one that dispatches an attempt and
 * the one whose tail handler reads its report) gets the same key. Never leaves the runtime: no
 * provider can read it, so none can compute a nonce for an attempt it was not sent.
 */
export class ReportKey {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec("CREATE TABLE IF NOT EXISTS report_key (id INTEGER PRIMARY KEY CHECK (id = 1), key TEXT NOT NULL)");
  }

  /** The key (64 hex digits), made now if there is none yet. */
  get(): string {
    const fresh = [...crypto.getRandomValues(new Uint8Array(32))].map((b) => b.toString(16).padStart(2, "0")).join("");
    this.sql.exec("INSERT INTO report_key (id, key) VALUES (1, ?) ON CONFLICT (id) DO NOTHING", fresh);
    return this.sql.exec<{ key: string }>("SELECT key FROM report_key WHERE id = 1").one().key;
  }
}
