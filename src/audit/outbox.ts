/**
 * Getting an execution's audit record into the queue (docs/contract.md#audit), so that it cannot be
 * lost: a message the queue refuses is kept in a durable outbox (AuditOutboxObject) that sends
 * it again until the queue takes it. Callers decide when to wait: the fast path waits before
 * it answers (one awaited send per call was measured at no cost in throughput); an
 * execution object records the send with an alarm that sends again until it is confirmed.
 * Every message is sent on its own: batching across requests would share one request's I/O
 * with another, which Workers refuses.
 */
import type { ExecutionRecord } from "../execution/record.ts";
import { outboxStub } from "../object-stubs.ts";
import type { AuditEntry, AuditMessage } from "./messages.ts";

export type AuditConfirm = "sent" | "failed";

/** Queues refuse messages over 128 KB; a finished record stays well under this or leaves its view out. */
export const MAX_MESSAGE_BYTES = 100 * 1024;

/** An operator's drill (POST /v1/admin/audit/drill/fail-next-send): the next N sends in this isolate fail. */
let failNext = 0;
/** Sends the drill has failed in this isolate so far. */
let failedByDrill = 0;
export function armSendFailure(n: number): void {
  failNext = Math.max(0, Math.floor(n));
}

/** The send drill in this isolate: failures still armed, and failures made so far. */
export function sendDrillState(): { armed: number; failed: number } {
  return { armed: failNext, failed: failedByDrill };
}

export function auditEntryOf(r: ExecutionRecord): AuditEntry {
  return {
    execution_id: r.execution_id,
    tenant: r.tenant,
    agent: r.agent,
    project: r.project,
    face: r.face,
    tool: r.tool,
    version: r.version,
    provider: r.provider,
    mode: r.mode,
    status: r.status,
    error_code: r.error?.code ?? null,
    accepted_at: r.accepted_at,
    ended_at: r.ended_at ?? r.accepted_at,
    params_hash: r.params_hash,
    latency_ms: Math.max(0, (r.ended_at ?? r.accepted_at) - r.accepted_at),
    attempts: r.attempts,
    capability: r.capability,
    correlation_id: r.correlation_id,
    trace_id: r.trace_id,
    ...(r.approval?.decision ? { approval: r.approval.decision } : {}),
  };
}

/** One send to the audit queue; never throws. */
export async function sendAudit(env: Env, message: AuditMessage): Promise<AuditConfirm> {
  try {
    if (failNext > 0) {
      failNext--;
      failedByDrill++;
      throw new Error("audit send drill: this send fails on purpose");
    }
    await env.AUDIT_QUEUE.send(message, { contentType: "json" });
    return "sent";
  } catch (err) {
    console.error(JSON.stringify({ msg: "audit send failed", kind: message.kind, error: String(err) }));
    return "failed";
  }
}

/** A send that cannot be lost: what the queue refuses goes to the durable outbox first. */
export async function deliverAudit(env: Env, message: AuditMessage): Promise<void> {
  if ((await sendAudit(env, message)) === "sent") return;
  // Sharded so that a queue outage does not put every isolate's fallback on one object.
  const shard = Math.floor(Math.random() * OUTBOX_SHARDS);
  await outboxStub(env, shard).keep(message);
}

export const OUTBOX_SHARDS = 8;
