/**
 * Which shard each part of a delivery of audit messages is written to (src/audit/shards.ts):
 *   finished       the record's tenant's shard
 *   usage          each CPU report to its execution's: the shard of a record of the same
 *                  delivery, else the one its tenant hash names (carried by the attempt's nonce,
 *                  src/audit/report-nonce.ts); a report without one (an attempt dispatched by an
 *                  older runtime) goes to every shard, where it finds its record or waits for it
 *   intent         its tenant's shard; a verdict sent without its tenant (an older runtime), as a
 *                  report without a hash
 *   anything else  refusal and verifier counts, a kind this code does not know: the home shard
 * Pure, so it is tested without databases.
 */
import type { AuditMessage } from "./messages.ts";
import { shardIndex, tenantHash } from "./shards.ts";
import type { UsageReport } from "./tail-reports.ts";

/** The messages each of `n` shards writes, by shard. */
export function byShard(messages: readonly AuditMessage[], n: number): AuditMessage[][] {
  const out = Array.from({ length: n }, (): AuditMessage[] => []);
  if (n <= 1) {
    out[0].push(...messages);
    return out;
  }
  const ofTenant = (tenant: string) => shardIndex(tenantHash(tenant), n);
  const recordShard = new Map<string, number>();
  for (const m of messages)
    if (m.kind === "finished") recordShard.set(m.record.execution_id, ofTenant(m.record.tenant));
  const everywhere = (m: AuditMessage) => out.forEach((list) => list.push(m));
  for (const m of messages) {
    switch (m.kind) {
      case "finished":
        out[recordShard.get(m.record.execution_id)!].push(m);
        break;
      case "intent": {
        const shard = m.tenant !== undefined ? ofTenant(m.tenant) : recordShard.get(m.execution_id);
        if (shard === undefined) everywhere(m);
        else out[shard].push(m);
        break;
      }
      case "usage": {
        const parts = new Map<number | "every", UsageReport[]>();
        for (const r of m.reports) {
          const shard =
            recordShard.get(r.execution_id) ?? (r.tenant_hash !== undefined ? shardIndex(r.tenant_hash, n) : "every");
          parts.set(shard, [...(parts.get(shard) ?? []), r]);
        }
        for (const [shard, reports] of parts) {
          const part: AuditMessage = { ...m, reports };
          if (shard === "every") everywhere(part);
          else out[shard].push(part);
        }
        break;
      }
      default:
        out[0].push(m);
    }
  }
  return out;
}
