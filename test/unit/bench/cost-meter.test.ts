/**
 * The bench's cost meter (bench/metered/cost-meter.ts) counts the audit consumer's D1 rows in
 * every audit shard (AUDIT_DB, AUDIT_DB_1, …) as the one `AuditD1` and times each shard's batch
 * under the one label `caller → AUDIT_DB.batch`, so a sharded run's totals compare with a
 * one-database run's. Fake bindings stand in for workerd's: the meter only wraps them.
 */
import { describe, expect, it } from "vitest";
import { costSnapshot, meteredEnv } from "../../../bench/metered/cost-meter.ts";
import { setTiming, timingSnapshot } from "../../../bench/metered/time-meter.ts";

/** A D1 binding whose batch writes `rows` rows per statement, and counts its calls. */
function fakeDb(rows: number) {
  const db = {
    batches: 0,
    prepare: (sql: string) => ({ sql }),
    batch: async (statements: unknown[]) => {
      db.batches++;
      return statements.map(() => ({ results: [], success: true, meta: { rows_written: rows } }));
    },
  };
  return db;
}

describe("the cost meter's audit D1", () => {
  it("counts and times every audit shard's batch as AuditD1, AUDIT_DB.batch", async () => {
    setTiming(true);
    try {
      const shards = [fakeDb(1), fakeDb(10), fakeDb(100)];
      const env = {
        AUDIT_QUEUE: { send: async () => {} },
        AUDIT_DB: shards[0],
        AUDIT_DB_1: shards[1],
        AUDIT_DB_2: shards[2],
        OTHER_DB: fakeDb(1000),
      };
      const metered = meteredEnv(env as never, "cost-meter-test") as unknown as Record<
        string,
        ReturnType<typeof fakeDb>
      >;
      const before = costSnapshot().AuditD1 ?? { requests: 0, rows_written: 0 };
      const label = "cost-meter-test → AUDIT_DB.batch";
      const calls = timingSnapshot()[label]?.calls ?? 0;

      for (const name of ["AUDIT_DB", "AUDIT_DB_1", "AUDIT_DB_2"]) {
        const db = metered[name];
        expect(db).not.toBe(env[name as keyof typeof env]);
        // The same stand-in every time, and the binding's other methods still work.
        expect(metered[name]).toBe(db);
        expect(db.prepare("select 1")).toEqual({ sql: "select 1" });
        await db.batch([1, 2]);
      }
      await metered.OTHER_DB.batch([1]);
      expect(shards.map((s) => s.batches)).toEqual([1, 1, 1]);

      const after = costSnapshot().AuditD1;
      expect(after.requests - before.requests).toBe(3);
      expect(after.rows_written - before.rows_written).toBe(2 * (1 + 10 + 100));
      expect(timingSnapshot()[label].calls - calls).toBe(3);
      expect(Object.keys(timingSnapshot()).filter((k) => k.startsWith("cost-meter-test → AUDIT_DB_"))).toEqual([]);
      // A shard the config does not bind is absent, as on the plain env.
      expect(metered.AUDIT_DB_3).toBeUndefined();
    } finally {
      setTiming(false);
    }
  });
});
