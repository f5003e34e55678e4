/**
 * The once of the operator bootstrap (src/routes/bootstrap.ts): one row in the registry
 * object's SQLite, because the registry is the deployment's one global object and its storage
 * is strongly consistent. KV, where the keys live, is eventually consistent and could let two
 * data centers each believe they were first. The claim is one synchronous statement, so two
 * claims cannot interleave: the object runs one at a time, and its output gate holds the
 * answer until the row is durable.
 */
export interface BootstrapUse {
  key_id: string;
  tenant: string;
  agent: string;
  used_at: number;
}

export class BootstrapClaim {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(
      "CREATE TABLE IF NOT EXISTS bootstrap (id INTEGER PRIMARY KEY CHECK (id = 1), key_id TEXT NOT NULL, tenant TEXT NOT NULL, agent TEXT NOT NULL, used_at INTEGER NOT NULL)",
    );
  }

  /** The bootstrap that happened, if one did. */
  used(): BootstrapUse | undefined {
    return this.sql
      .exec<{ key_id: string; tenant: string; agent: string; used_at: number }>(
        "SELECT key_id, tenant, agent, used_at FROM bootstrap WHERE id = 1",
      )
      .toArray()[0];
  }

  /** Records `use` as the bootstrap, unless one was recorded before: true for the first claim only. */
  claim(use: BootstrapUse): boolean {
    const cursor = this.sql.exec(
      "INSERT INTO bootstrap (id, key_id, tenant, agent, used_at) VALUES (1, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
      use.key_id,
      use.tenant,
      use.agent,
      use.used_at,
    );
    return cursor.rowsWritten === 1;
  }
}
