/**
 * Before each integration file: the audit database gets its schema the way every database does,
 * from the migrations (migrations/, read by vitest.config.ts), never from the code. Applying is
 * idempotent (applied ones are recorded in d1_migrations), so a file's storage that already has
 * them is left as it is.
 */
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";

await applyD1Migrations(env.AUDIT_DB, (env as Env & { TEST_MIGRATIONS: D1Migration[] }).TEST_MIGRATIONS);
