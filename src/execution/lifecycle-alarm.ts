/**
 * An execution object's one alarm (docs/contract.md#waiting, docs/contract.md#retention), pure:
 * when it is due for the lifecycle as it stands. While it waits: the end of the wait (approval
 * window, wait bound). While it runs: the deadline and some slack (an in-memory timer that died is
 * backed up). Ended: the audit outbox's next send until the queue confirms the record, then the end
 * of the record's retention.
 */
import type { Lifecycle } from "./lifecycle-types.ts";
import { isTerminal, isWaiting } from "./record.ts";
import { waitEndsAt } from "./waiting.ts";

/** How long past its deadline an execution may go before the alarm ends it regardless. */
export const DEADLINE_SLACK_MS = 5_000;
/** How long the audit outbox waits for the queue's acknowledgement before sending again. */
export const AUDIT_CONFIRM_MS = 30_000;

/** When the alarm is due; undefined: nothing to wake for (or the alarm already set stands). */
export function nextAlarm(s: Lifecycle): number | undefined {
  // A run begun from no stored record has no record here until the run saves it.
  if (s.run) return s.run.deadline + DEADLINE_SLACK_MS;
  const r = s.record;
  if (!r) return undefined;
  if (isWaiting(r.status)) return s.plan ? waitEndsAt(r, s.plan) : undefined;
  if (!isTerminal(r.status)) return undefined;
  if (!s.audit?.confirmed) return s.audit?.resendAt;
  return r.ended_at! + r.retention_ms;
}
