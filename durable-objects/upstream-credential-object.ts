/**
 * UpstreamCredentialObject: one per tenant (named by the tenant), holding that tenant's tokens
 * for upstream MCP servers as ciphertext only (src/upstreams/credentials.ts seals and opens
 * them in the Worker, bound to the upstream's name and address: a token kept here for a name
 * that was registered again elsewhere no longer opens). Per tenant, so that a call reads one
 * small object of its own tenant and no tenant's object is ever asked for another's token.
 */
import { DurableObject } from "cloudflare:workers";
import type { SealedToken } from "../src/upstreams/credentials.ts";

export class UpstreamCredentialObject extends DurableObject<Env> {
  readonly #sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#sql = ctx.storage.sql;
    this.#sql.exec(
      "CREATE TABLE IF NOT EXISTS tokens (upstream TEXT PRIMARY KEY, key_id TEXT NOT NULL, iv TEXT NOT NULL, ciphertext TEXT NOT NULL, updated_at INTEGER NOT NULL)",
    );
  }

  put(upstream: string, sealed: SealedToken): void {
    this.#sql.exec(
      "INSERT INTO tokens (upstream, key_id, iv, ciphertext, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (upstream) DO UPDATE SET key_id = excluded.key_id, iv = excluded.iv, ciphertext = excluded.ciphertext, updated_at = excluded.updated_at",
      upstream,
      sealed.key_id,
      sealed.iv,
      sealed.ciphertext,
      sealed.updated_at,
    );
  }

  get(upstream: string): SealedToken | null {
    const row = this.#sql
      .exec<{ key_id: string; iv: string; ciphertext: string; updated_at: number }>(
        "SELECT key_id, iv, ciphertext, updated_at FROM tokens WHERE upstream = ?",
        upstream,
      )
      .toArray()[0];
    return row ? { key_id: row.key_id, iv: row.iv, ciphertext: row.ciphertext, updated_at: row.updated_at } : null;
  }

  delete(upstream: string): boolean {
    return this.#sql.exec("DELETE FROM tokens WHERE upstream = ?", upstream).rowsWritten > 0;
  }
}
