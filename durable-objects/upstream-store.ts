/**
 * The registry object's tables for upstream MCP servers, beside registry-store.ts's
 * and set up the same idempotent way: upstreams registered through the admin API, the approved
 * definition of each served tool (its pin), definitions listed since that no operator has
 * approved yet, the definitions operators rejected, and what each upstream's last listing found.
 */
import type { UpstreamConfig } from "../src/upstreams/config.ts";
import type { ToolDefinition } from "../src/upstreams/definition.ts";
import type { PendingChange, Pin, Rejection } from "../src/upstreams/pinning.ts";
import type { UpstreamEra } from "../src/upstreams/target.ts";

/** What an upstream's last listing found (for operators; the catalog holds what is served). */
export interface ListingStatus {
  listed_at: number;
  /** Set when the listing failed; the last known tools keep serving, marked dead. */
  error?: string;
  era?: UpstreamEra["kind"];
  /** Allowed tools it listed, and those withheld because their definition changed. */
  tools: string[];
  withheld: string[];
  /** Listed tools the allow-list leaves out. */
  not_allowed: number;
}

export class UpstreamStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(`
      CREATE TABLE IF NOT EXISTS upstreams (name TEXT PRIMARY KEY, body TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS upstream_pins (upstream TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, definition TEXT NOT NULL, approved_at INTEGER NOT NULL, approved_by TEXT NOT NULL, PRIMARY KEY (upstream, tool));
      CREATE TABLE IF NOT EXISTS upstream_changes (upstream TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, definition TEXT NOT NULL, seen_at INTEGER NOT NULL, PRIMARY KEY (upstream, tool));
      CREATE TABLE IF NOT EXISTS upstream_rejections (upstream TEXT NOT NULL, tool TEXT NOT NULL, hash TEXT NOT NULL, rejected_at INTEGER NOT NULL, rejected_by TEXT NOT NULL, reason TEXT, PRIMARY KEY (upstream, tool, hash));
      CREATE TABLE IF NOT EXISTS upstream_status (name TEXT PRIMARY KEY, body TEXT NOT NULL);
    `);
  }

  registered(): UpstreamConfig[] {
    return this.sql
      .exec<{ body: string }>("SELECT body FROM upstreams ORDER BY name")
      .toArray()
      .map((r) => JSON.parse(r.body));
  }

  saveRegistration(upstream: UpstreamConfig): void {
    this.sql.exec(
      "INSERT INTO upstreams (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body",
      upstream.name,
      JSON.stringify(upstream),
    );
  }

  /** Forgets an upstream entirely: its registration, pins, pending and rejected changes, and status. */
  remove(name: string): void {
    for (const table of ["upstreams", "upstream_status"]) this.sql.exec(`DELETE FROM ${table} WHERE name = ?`, name);
    for (const table of ["upstream_pins", "upstream_changes", "upstream_rejections"])
      this.sql.exec(`DELETE FROM ${table} WHERE upstream = ?`, name);
  }

  pins(upstream: string): Map<string, Pin> {
    const rows = this.sql
      .exec<{ tool: string; hash: string; definition: string; approved_at: number; approved_by: string }>(
        "SELECT tool, hash, definition, approved_at, approved_by FROM upstream_pins WHERE upstream = ?",
        upstream,
      )
      .toArray();
    return new Map(
      rows.map((r) => [
        r.tool,
        {
          tool: r.tool,
          hash: r.hash,
          definition: JSON.parse(r.definition) as ToolDefinition,
          approved_at: r.approved_at,
          approved_by: r.approved_by as Pin["approved_by"],
        },
      ]),
    );
  }

  savePin(upstream: string, pin: Pin): void {
    this.sql.exec(
      "INSERT INTO upstream_pins (upstream, tool, hash, definition, approved_at, approved_by) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (upstream, tool) DO UPDATE SET hash = excluded.hash, definition = excluded.definition, approved_at = excluded.approved_at, approved_by = excluded.approved_by",
      upstream,
      pin.tool,
      pin.hash,
      JSON.stringify(pin.definition),
      pin.approved_at,
      pin.approved_by,
    );
  }

  pending(upstream?: string): Map<string, PendingChange & { upstream: string }> {
    const rows = this.sql
      .exec<{ upstream: string; tool: string; hash: string; definition: string; seen_at: number }>(
        upstream === undefined
          ? "SELECT upstream, tool, hash, definition, seen_at FROM upstream_changes ORDER BY upstream, tool"
          : "SELECT upstream, tool, hash, definition, seen_at FROM upstream_changes WHERE upstream = ? ORDER BY tool",
        ...(upstream === undefined ? [] : [upstream]),
      )
      .toArray();
    return new Map(
      rows.map((r) => [
        upstream === undefined ? `${r.upstream}/${r.tool}` : r.tool,
        {
          upstream: r.upstream,
          tool: r.tool,
          hash: r.hash,
          definition: JSON.parse(r.definition) as ToolDefinition,
          seen_at: r.seen_at,
        },
      ]),
    );
  }

  savePending(upstream: string, change: PendingChange): void {
    this.sql.exec(
      "INSERT INTO upstream_changes (upstream, tool, hash, definition, seen_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (upstream, tool) DO UPDATE SET hash = excluded.hash, definition = excluded.definition, seen_at = excluded.seen_at",
      upstream,
      change.tool,
      change.hash,
      JSON.stringify(change.definition),
      change.seen_at,
    );
  }

  clearPending(upstream: string, tool: string): void {
    this.sql.exec("DELETE FROM upstream_changes WHERE upstream = ? AND tool = ?", upstream, tool);
  }

  /** Every rejected definition of an upstream's tools, oldest first. */
  rejections(upstream: string): Rejection[] {
    return this.sql
      .exec<{ tool: string; hash: string; rejected_at: number; rejected_by: string; reason: string | null }>(
        "SELECT tool, hash, rejected_at, rejected_by, reason FROM upstream_rejections WHERE upstream = ? ORDER BY rejected_at, tool",
        upstream,
      )
      .toArray()
      .map((r) => ({
        tool: r.tool,
        hash: r.hash,
        rejected_at: r.rejected_at,
        rejected_by: r.rejected_by,
        reason: r.reason,
      }));
  }

  saveRejection(upstream: string, r: Rejection): void {
    this.sql.exec(
      "INSERT INTO upstream_rejections (upstream, tool, hash, rejected_at, rejected_by, reason) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (upstream, tool, hash) DO NOTHING",
      upstream,
      r.tool,
      r.hash,
      r.rejected_at,
      r.rejected_by,
      r.reason,
    );
  }

  status(name: string): ListingStatus | undefined {
    const row = this.sql.exec<{ body: string }>("SELECT body FROM upstream_status WHERE name = ?", name).toArray()[0];
    return row ? JSON.parse(row.body) : undefined;
  }

  saveStatus(name: string, status: ListingStatus): void {
    this.sql.exec(
      "INSERT INTO upstream_status (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body",
      name,
      JSON.stringify(status),
    );
  }
}
