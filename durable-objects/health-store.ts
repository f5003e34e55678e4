/**
 * A health shard's SQLite tables, set up idempotently in the constructor: per tool, the window of
 * recent samples with the breaker policy (one row, rewritten once per report that touches the
 * tool, not once per sample), and the breaker (written only when it moves). Strikes towards
 * "dead" stay in memory: a restart forgives them, as the registry's did.
 */
import type { HealthShardStore, ToolWindow } from "../src/registry/health-shard.ts";
import type { BreakerRecord } from "../src/registry/provider-health.ts";

/** A sample as the window stores it: [at, latency_ms, ok]. */
type Stored = [number, number, 0 | 1];

export class HealthStore implements HealthShardStore {
  private readonly sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.sql = sql;
    sql.exec(`
      CREATE TABLE IF NOT EXISTS windows (tool TEXT PRIMARY KEY, policy TEXT, samples TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS breakers (tool TEXT PRIMARY KEY, body TEXT NOT NULL);
    `);
  }

  windows(provider: string): Map<string, ToolWindow> {
    const rows = this.sql
      .exec<{ tool: string; policy: string | null; samples: string }>("SELECT tool, policy, samples FROM windows")
      .toArray();
    return new Map(
      rows.map((r) => [
        r.tool,
        {
          policy: r.policy ? JSON.parse(r.policy) : undefined,
          samples: (JSON.parse(r.samples) as Stored[]).map(([at, latency_ms, ok]) => ({
            provider,
            tool: r.tool,
            at,
            latency_ms,
            ok: ok === 1,
          })),
        },
      ]),
    );
  }

  saveWindow(tool: string, w: ToolWindow): void {
    const samples: Stored[] = w.samples.map((s) => [s.at, s.latency_ms, s.ok ? 1 : 0]);
    this.sql.exec(
      "INSERT INTO windows (tool, policy, samples) VALUES (?, ?, ?) ON CONFLICT (tool) DO UPDATE SET policy = excluded.policy, samples = excluded.samples",
      tool,
      w.policy ? JSON.stringify(w.policy) : null,
      JSON.stringify(samples),
    );
  }

  breakers(): Map<string, BreakerRecord> {
    const rows = this.sql.exec<{ tool: string; body: string }>("SELECT tool, body FROM breakers").toArray();
    return new Map(rows.map((r) => [r.tool, JSON.parse(r.body)]));
  }

  saveBreaker(tool: string, b: BreakerRecord): void {
    this.sql.exec(
      "INSERT INTO breakers (tool, body) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET body = excluded.body",
      tool,
      JSON.stringify(b),
    );
  }

  /** Forgets everything calls taught (an operator's reset). */
  clear(): void {
    this.sql.exec("DELETE FROM windows");
    this.sql.exec("DELETE FROM breakers");
  }
}
