/**
 * Before each integration file: the audit database gets its schema the way every database does,
 * from the migrations (migrations/, read by vitest.config.ts), never from the code. Applying is
 * idempotent (applied ones are recorded in d1_migrations), so a file's storage that already has
 * them is left as it is. Every audit shard gets them: AUDIT_DB and each AUDIT_DB_<k> the config
 * binds (the dev overlay adds AUDIT_DB_1, scripts/audit-shards.ts), contiguous from 1.
 */
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

const bindings = env as unknown as Record<string, D1Database | undefined> & { TEST_MIGRATIONS: D1Migration[] };
const migrations = bindings.TEST_MIGRATIONS;

await applyD1Migrations(env.AUDIT_DB, migrations);
for (let k = 1; bindings[`AUDIT_DB_${k}`]; k++) await applyD1Migrations(bindings[`AUDIT_DB_${k}`]!, migrations);
