/**
 * The shell half of a waiting line (src/policy/waiting-line.ts): sends each due grant to its
 * waiter's object and records the answer, and keeps the owner's one alarm pointed at the
 * earliest thing due. Used by TenantObject (slots) and ProviderGate (permits).
 */
import type { Waiter, WaitingLine } from "../src/policy/waiting-line.ts";

/** How a line's owner tells a waiter, and takes back a grant the waiter declined. */
export interface GrantSender<T extends Waiter> {
  /** Tells the waiter's object its grant came: true when it took it. */
  send(waiter: T): Promise<boolean>;
  /** The waiter no longer wanted it: the owner hands it on (and runs its own after-change). */
  declined(waiter: T): Promise<void>;
  /** Names the grant in the warning a failed delivery logs. */
  what: string;
}

/**
 * Sends every grant due now without waiting for the answers: an answer arrives later and
 * settles the grant; a failure leaves it to the alarm, after the line's backoff.
 */
export function deliverGrants<T extends Waiter>(line: WaitingLine<T>, sender: GrantSender<T>): void {
  for (const waiter of line.due(Date.now())) {
    void Promise.resolve()
      .then(() => sender.send(waiter))
      .then(
        async (taken) => {
          line.answered(waiter.execution_id, taken);
          if (!taken) await sender.declined(waiter);
        },
        (err) => {
          const retryAt = line.failed(waiter.execution_id, Date.now());
          console.warn(
            JSON.stringify({
              msg: `${sender.what} not delivered; the alarm tries again`,
              execution_id: waiter.execution_id,
              retry_at: new Date(retryAt).toISOString(),
              error: String(err),
            }),
          );
        },
      );
  }
}

/** Points the object's alarm at `due` unless it already comes sooner; nothing when `due` is undefined. */
export async function keepAlarm(storage: DurableObjectStorage, due: number | undefined): Promise<void> {
  if (due === undefined || !Number.isFinite(due)) return;
  const at = await storage.getAlarm();
  if (at === null || at > due) await storage.setAlarm(due);
}
