import { describe, expect, it } from "vitest";
import type { AuditMessage } from "../../../src/audit/messages.ts";
import { byShard } from "../../../src/audit/routing.ts";
import { auditShards, mergePages, shardIndex, tenantHash, tenantShard } from "../../../src/audit/shards.ts";

const db = (name: string) => ({ name }) as unknown as D1Database;

describe("audit shards (src/audit/shards.ts)", () => {
  it("finds the shards from the bindings, AUDIT_DB first, up to the first gap", () => {
    const [a, b, c, d] = ["a", "b", "c", "d"].map(db);
    expect(auditShards({ AUDIT_DB: a } as unknown as Env)).toEqual([a]);
    expect(auditShards({ AUDIT_DB: a, AUDIT_DB_1: b, AUDIT_DB_2: c } as unknown as Env)).toEqual([a, b, c]);
    expect(auditShards({ AUDIT_DB: a, AUDIT_DB_1: b, AUDIT_DB_3: d } as unknown as Env)).toEqual([a, b]);
    expect(auditShards({} as unknown as Env)).toEqual([]);
  });

  it("hashes a tenant with 32-bit FNV-1a, as 8 hex digits", () => {
    // The published FNV-1a test vectors.
    expect(tenantHash("")).toBe("811c9dc5");
    expect(tenantHash("a")).toBe("e40c292c");
    expect(tenantHash("foobar")).toBe("bf9cf968");
  });

  it("spreads tenants evenly, and moves only about 1/(N+1) of them, all to the new shard, when one is added", () => {
    const tenants = Array.from({ length: 4000 }, (_, i) => tenantHash(`tenant-${i}`));
    for (const n of [2, 3, 8]) {
      const counts = new Array(n).fill(0);
      for (const h of tenants) counts[shardIndex(h, n)]++;
      for (const c of counts) expect(Math.abs(c - 4000 / n)).toBeLessThan((4000 / n) * 0.15);
      const moved = tenants.filter((h) => shardIndex(h, n) !== shardIndex(h, n + 1));
      expect(moved.every((h) => shardIndex(h, n + 1) === n)).toBe(true);
      expect(Math.abs(moved.length - 4000 / (n + 1))).toBeLessThan((4000 / (n + 1)) * 0.2);
    }
    expect(tenants.every((h) => shardIndex(h, 1) === 0)).toBe(true);
  });

  it("gives a tenant the same shard on every call", () => {
    const e = { AUDIT_DB: db("a"), AUDIT_DB_1: db("b"), AUDIT_DB_2: db("c") } as unknown as Env;
    for (const t of ["acme", "globex", "initech", "ünïcode"]) {
      expect(tenantShard(e, t)).toBe(auditShards(e)[shardIndex(tenantHash(t), 3)]);
      expect(tenantShard(e, t)).toBe(tenantShard(e, t));
    }
  });

  it("merges shards' pages into the page one database would give, newest first, ties by id descending", () => {
    const item = (t: number, id: string) => ({ t, id });
    const key = (x: { t: number; id: string }) => x;
    const pages = [[item(9, "b"), item(5, "a"), item(1, "z")], [item(9, "c"), item(7, "x")], []];
    expect(mergePages(pages, 3, key)).toEqual({ items: [item(9, "c"), item(9, "b"), item(7, "x")], more: true });
    expect(mergePages(pages, 5, key)).toEqual({
      items: [...pages[1], ...pages[0]].sort((a, b) => b.t - a.t || (a.id < b.id ? 1 : -1)),
      more: false,
    });
    expect(mergePages([[], []], 2, key)).toEqual({ items: [], more: false });
  });
});

describe("a delivery's messages by shard (src/audit/routing.ts)", () => {
  const n = 4;
  const tenants = ["t-0", "t-1", "t-2", "t-3", "t-4", "t-5"];
  const shardOf = (t: string) => shardIndex(tenantHash(t), n);
  const finished = (tenant: string, id: string): AuditMessage =>
    ({ kind: "finished", record: { tenant, execution_id: id }, retention_ms: 1 }) as unknown as AuditMessage;
  const usage = (reports: { execution_id: string; tenant_hash?: string }[]): AuditMessage => ({
    kind: "usage",
    reports: reports.map((r) => ({ attempt: 1, cpu_ms: 1, ...r })),
    expires_at: 1,
  });

  it("puts everything in the one shard when there is one", () => {
    const messages = [finished("a", "x"), usage([{ execution_id: "y" }])];
    expect(byShard(messages, 1)).toEqual([messages]);
  });

  it("sends a record to its tenant's shard, and counts that belong to no tenant home", () => {
    const records = tenants.map((t, i) => finished(t, `e${i}`));
    const refusals: AuditMessage = { kind: "refusals", id: "r", counts: [] };
    const unverified: AuditMessage = { kind: "intent_unverified", id: "u", counts: [] };
    const routed = byShard([...records, refusals, unverified], n);
    tenants.forEach((t, i) => expect(routed[shardOf(t)]).toContain(records[i]));
    expect(routed.flat().filter((m) => m.kind === "finished")).toHaveLength(tenants.length);
    expect(routed[0]).toEqual(expect.arrayContaining([refusals, unverified]));
    expect(
      routed
        .slice(1)
        .flat()
        .some((m) => m.kind === "refusals" || m.kind === "intent_unverified"),
    ).toBe(false);
  });

  it("sends a CPU report to its record's shard, or the one its tenant hash names, or, naming none, to every shard", () => {
    const a = "t-0";
    const b = tenants.find((t) => shardOf(t) !== shardOf(a))!;
    const routed = byShard(
      [
        finished(a, "with-record"),
        usage([
          { execution_id: "with-record" },
          { execution_id: "hashed", tenant_hash: tenantHash(b) },
          { execution_id: "unknown" },
        ]),
      ],
      n,
    );
    const reportsIn = (i: number) =>
      routed[i].flatMap((m) => (m.kind === "usage" ? m.reports.map((r) => r.execution_id) : []));
    expect(reportsIn(shardOf(a))).toContain("with-record");
    expect(reportsIn(shardOf(b))).toContain("hashed");
    for (let i = 0; i < n; i++) expect(reportsIn(i)).toContain("unknown");
    expect(
      routed
        .flat()
        .flatMap((m) => (m.kind === "usage" ? m.reports : []))
        .filter((r) => r.execution_id === "with-record"),
    ).toHaveLength(1);
  });

  it("sends a verdict to its tenant's shard, or with none named, to its record's in the delivery, or to every shard", () => {
    const verdict = (id: string, tenant?: string): AuditMessage => ({
      kind: "intent",
      execution_id: id,
      decision: { verdict: "aligned", mode: "async", reason: "" },
      ...(tenant === undefined ? {} : { tenant }),
    });
    const named = verdict("x", "t-2");
    const byRecord = verdict("r");
    const unknown = verdict("nobody");
    const routed = byShard([finished("t-5", "r"), named, byRecord, unknown], n);
    expect(routed.map((list) => list.includes(named))).toEqual([0, 1, 2, 3].map((i) => i === shardOf("t-2")));
    expect(routed.map((list) => list.includes(byRecord))).toEqual([0, 1, 2, 3].map((i) => i === shardOf("t-5")));
    expect(routed.every((list) => list.includes(unknown))).toBe(true);
  });
});
