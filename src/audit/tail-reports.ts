/**
 * Reading the platform's report of provider Worker invocations (a Tail Worker's `TraceItem`s)
 * into CPU reports per execution attempt. Pure, so it is tested with recorded TraceItems.
 *
 * What a TraceItem carries for a provider's `invoke` over Workers RPC (seen under wrangler dev,
 * wrangler 4.156 / workerd, and in @cloudflare/workers-types): `event: { rpcMethod: "invoke" }`,
 * `outcome`, `cpuTime` and `wallTime` (ms), `logs` (each `{ message: unknown[], level,
 * timestamp }`), `scriptName`; not the call's arguments. So the provider SDK logs one line per
 * invocation naming the execution and attempt (providers/sdk/protocol.ts INVOCATION_LOG), and
 * this reads it back. That line is the provider's word, so a report is believed only when the
 * line carries the nonce the runtime sent with that very attempt (src/audit/report-nonce.ts).
 * Under `wrangler dev` every invocation reports `cpuTime: 0, wallTime: 0`
 * (no measurement), and each log message is prefixed with the Worker's name ("[tool-provider-std]").
 */
import { INVOCATION_LOG } from "../../providers/sdk/protocol.ts";
import { MAX_ATTEMPT, type AttemptUsage } from "../execution/usage.ts";
import { REPORT_NONCE, tenantHashOf } from "./report-nonce.ts";

/** The parts of a TraceItem read here (a subset of workers-types' TraceItem). */
export interface TraceItemLike {
  event?: unknown;
  logs?: readonly { message?: unknown }[];
  cpuTime?: number;
  wallTime?: number;
}

/** One attempt's CPU report, addressed to its execution. */
export interface UsageReport extends AttemptUsage {
  execution_id: string;
  /** The execution's tenant's hash, which names its audit shard (src/audit/shards.ts), when its nonce carried one. */
  tenant_hash?: string;
}

/** A report as an invocation's line gives it, with the nonce the line carried (null: none). */
export interface InvocationReport extends UsageReport {
  nonce: string | null;
}

const EXECUTION_ID = /^exec_(?:[0-9a-f]{64}|e[0-9a-f]{44})$/;

/** The reports in a batch of TraceItems, not yet believed: one per provider `invoke` that logged its line (its first). */
export function invocationReports(items: readonly TraceItemLike[]): InvocationReport[] {
  const reports: InvocationReport[] = [];
  for (const item of items) {
    if (!isInvoke(item.event)) continue;
    const line = invocationLine(item.logs ?? []);
    if (line)
      reports.push({
        execution_id: line.execution_id,
        attempt: line.attempt,
        cpu_ms: measuredCpu(item),
        nonce: line.nonce,
      });
  }
  return reports;
}

/**
 * The reports to believe: those whose nonce is the one `expected` gives for their execution and
 * attempt, the first of each attempt. Checked before the first is taken, so a forged line for
 * an attempt cannot crowd out the real report in the same batch.
 */
export function usageReportsOf(
  reports: readonly InvocationReport[],
  expected: (r: InvocationReport) => string | undefined,
): UsageReport[] {
  const believed = new Map<string, UsageReport>();
  for (const r of reports) {
    const nonce = expected(r);
    if (r.nonce === null || nonce === undefined || r.nonce !== nonce) continue;
    const key = `${r.execution_id}#${r.attempt}`;
    const hash = tenantHashOf(r.nonce);
    if (!believed.has(key))
      believed.set(key, {
        execution_id: r.execution_id,
        attempt: r.attempt,
        cpu_ms: r.cpu_ms,
        ...(hash === undefined ? {} : { tenant_hash: hash }),
      });
  }
  return [...believed.values()];
}

function isInvoke(event: unknown): boolean {
  return typeof event === "object" && event !== null && (event as { rpcMethod?: unknown }).rpcMethod === "invoke";
}

/**
 * The platform's figure, or null when it measured nothing: the local runtime reports 0 ms of
 * both CPU and wall time for every invocation, and an invocation that did an RPC round trip to
 * the runtime and logged a line has a wall time above 0 ms when deployed.
 */
function measuredCpu(item: TraceItemLike): number | null {
  const { cpuTime, wallTime } = item;
  if (typeof cpuTime !== "number" || !Number.isFinite(cpuTime) || cpuTime < 0) return null;
  if (cpuTime === 0 && (wallTime === 0 || wallTime === undefined)) return null;
  return cpuTime;
}

function invocationLine(
  logs: readonly { message?: unknown }[],
): { execution_id: string; attempt: number; nonce: string | null } | undefined {
  for (const log of logs) {
    const parts = Array.isArray(log.message) ? log.message : [log.message];
    for (const part of parts) {
      if (typeof part !== "string" || !part.includes(INVOCATION_LOG)) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(part);
      } catch {
        continue;
      }
      const p = parsed as { msg?: unknown; execution_id?: unknown; attempt?: unknown; nonce?: unknown };
      if (p?.msg !== INVOCATION_LOG || typeof p.execution_id !== "string" || !EXECUTION_ID.test(p.execution_id))
        continue;
      if (typeof p.attempt !== "number" || !Number.isInteger(p.attempt) || p.attempt < 1 || p.attempt > MAX_ATTEMPT)
        continue;
      return {
        execution_id: p.execution_id,
        attempt: p.attempt,
        nonce: typeof p.nonce === "string" && REPORT_NONCE.test(p.nonce) ? p.nonce : null,
      };
    }
  }
  return undefined;
}
