/**
 * The runtime is the tail consumer of every provider Worker (`tail_consumers` in
 * providers/<name>/wrangler.jsonc): once a provider invocation has ended, the platform hands
 * the runtime its report — outcome, logs, CPU and wall time (a `TraceItem`) — and this writes
 * each `invoke`'s CPU time to its execution's record after the fact (docs/contract.md#response `resources`):
 *
 *   every report → this isolate's batch (src/audit/usage-batch.ts) → one audit message →
 *   its record's row in the audit store, where the audit log and GET of every execution id
 *   (src/execution/reads.ts) read it. No execution object is woken for it.
 *
 * Only reports whose nonce is the one the runtime sent with that attempt are believed
 * (src/audit/report-nonce.ts); the rest are dropped, as are all of a batch when the key cannot
 * be had. Best effort by nature: tail events are not retried, and a report the queue refuses is
 * logged and dropped (the record then says `cpu_report: "none"`).
 */
import { loadConfig } from "../config.ts";
import { sendAudit } from "./outbox.ts";
import { expectedNonces } from "./report-nonce.ts";
import { invocationReports, usageReportsOf, type TraceItemLike } from "./tail-reports.ts";
import { UsageBatch } from "./usage-batch.ts";

/** This isolate's reports on their way to the audit queue. */
const batch = new UsageBatch();

export async function consumeTail(events: readonly TraceItemLike[], env: Env): Promise<void> {
  const candidates = invocationReports(events);
  if (candidates.length === 0) return;
  let expected: Map<(typeof candidates)[number], string>;
  try {
    expected = await expectedNonces(env, candidates);
  } catch (err) {
    console.warn(
      JSON.stringify({
        msg: "cpu reports dropped: the report key could not be had",
        reports: candidates.length,
        error: String(err),
      }),
    );
    return;
  }
  const reports = usageReportsOf(candidates, (r) => expected.get(r));
  if (reports.length < candidates.length)
    console.warn(
      JSON.stringify({
        msg: "cpu reports not believed: no nonce, or not the attempt's",
        dropped: candidates.length - reports.length,
      }),
    );
  if (reports.length === 0) return;
  const expiresAt = Date.now() + loadConfig(env).retentionMs;
  await batch.add(reports, expiresAt, (reports, expires_at) => sendAudit(env, { kind: "usage", reports, expires_at }));
}
