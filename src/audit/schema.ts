/**
 * The audit database (D1) and the code's side of its schema. The schema itself is
 * `migrations/` (wrangler d1 migrations), applied before the code runs against a database:
 * `npm start` and every local stack apply it with `--local`, a deployment with `--remote`. The
 * code assumes it and creates nothing; a database that has not been migrated is reported by the
 * readiness check (`auditSchemaReadiness`) instead of failing requests one by one.
 *
 * One row per finished execution serves as the audit log and the execution index; every
 * aggregate the metrics read is kept up to date by the consumer in the same transaction as the
 * rows it comes from. Rows leave with the retention window (`expires_at`).
 */

/** Latency histogram bounds in seconds (1 ms to 600 s, Prometheus `le`). */
export const LATENCY_BUCKETS_S = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600,
];

/**
 * The newest migration this code needs: its file name under `migrations/`, as wrangler records
 * it in `d1_migrations`. A migration the code depends on moves this forward (a unit test holds
 * it to the newest file there).
 */
export const AUDIT_SCHEMA_MIGRATION = "0004_audit_archive_outbox.sql";

/** Where wrangler records applied migrations (its default `migrations_table`). */
export const MIGRATIONS_TABLE = "d1_migrations";

/** What an operator reads when the database lacks the schema, and the one command that fixes it. */
export const NOT_MIGRATED =
  "audit schema not migrated: run `npx wrangler d1 migrations apply AUDIT_DB --local|--remote`";

export interface AuditDbReadiness {
  ready: boolean;
  /** Why not, when not ready. */
  reason?: string;
}

/**
 * Whether `db` holds the schema this code needs: one indexed read of wrangler's record of
 * applied migrations. A database made before the schema became migrations has the tables but
 * no record, and is not ready until the migrations are applied (which keeps its rows).
 */
export async function auditSchemaReadiness(db: D1Database | undefined): Promise<AuditDbReadiness> {
  if (!db) return { ready: false, reason: "no AUDIT_DB database is bound" };
  try {
    const row = await db
      .prepare(`SELECT 1 AS applied FROM ${MIGRATIONS_TABLE} WHERE name = ?`)
      .bind(AUDIT_SCHEMA_MIGRATION)
      .first();
    return row ? { ready: true } : { ready: false, reason: NOT_MIGRATED };
  } catch (err) {
    // No migrations table: nothing was ever applied. Anything else is the database's own fault.
    const message = (err as Error).message;
    return /no such table/i.test(message)
      ? { ready: false, reason: NOT_MIGRATED }
      : { ready: false, reason: `audit database unreadable: ${message}` };
  }
}

/**
 * Whether every shard of the audit store (src/audit/shards.ts) holds the schema: the first one
 * that does not names itself (its binding) in the reason.
 */
export async function auditStoreReadiness(shards: readonly D1Database[]): Promise<AuditDbReadiness> {
  if (shards.length === 0) return auditSchemaReadiness(undefined);
  const each = await Promise.all(shards.map((db) => auditSchemaReadiness(db)));
  const i = each.findIndex((r) => !r.ready);
  if (i < 0) return { ready: true };
  const binding = i === 0 ? "AUDIT_DB" : `AUDIT_DB_${i}`;
  return {
    ready: false,
    reason: i === 0 ? each[i].reason : `${binding}: ${each[i].reason?.replace("AUDIT_DB", binding)}`,
  };
}
