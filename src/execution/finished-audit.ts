/**
 * An execution object's audit outbox: its finished record reaches the audit queue at least once
 * (src/audit/outbox.ts; the consumer keeps one record per execution whatever it receives twice).
 * Sent when the execution ends; the object's one alarm, set AUDIT_CONFIRM_MS ahead, sends it again
 * until the queue confirms it; once confirmed, the alarm moves to the end of the record's retention.
 */
import { auditEntryOf, sendAudit } from "../audit/outbox.ts";
import type { ExecutionRecord } from "./record.ts";

/** How long the audit outbox waits for the queue's acknowledgement before sending again. */
export const AUDIT_CONFIRM_MS = 30_000;

export class FinishedAudit {
  readonly #env: Env;
  readonly #setAlarm: (at: number) => Promise<void>;
  #confirmed = false;

  constructor(env: Env, setAlarm: (at: number) => Promise<void>) {
    this.#env = env;
    this.#setAlarm = setAlarm;
  }

  /** The queue confirmed the finished record (an instance that is new has not seen it confirmed). */
  get confirmed(): boolean {
    return this.#confirmed;
  }

  /** The execution ended: the alarm sends the record again unless the queue confirms it first. */
  ended(record: ExecutionRecord, now: number): void {
    void this.#setAlarm(now + AUDIT_CONFIRM_MS);
    void this.send(record);
  }

  async send(record: ExecutionRecord): Promise<void> {
    const confirm = await sendAudit(this.#env, {
      kind: "finished",
      record: auditEntryOf(record),
      retention_ms: record.retention_ms,
    });
    if (confirm !== "sent") return;
    this.#confirmed = true;
    await this.#setAlarm(record.ended_at! + record.retention_ms);
  }
}
