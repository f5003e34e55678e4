/**
 * CPU reports leave an isolate in batches (docs/decisions/33-execution-timings-and-cpu.md). The platform
 * hands the tail handler one provider invocation's report at a time; sent as they came, each
 * would be an audit message of its own, three queue operations per execution for a figure of a
 * few bytes. Here they wait up to USAGE_LINGER_MS and leave together, one message for all that
 * arrived meanwhile in this isolate.
 *
 * The invocation that opens the window sends the batch, and waits for it: the send is its own
 * I/O, in its own request. Later ones add their reports and return; no invocation awaits
 * another's promise (Workers ties a promise's I/O to the request that made it). What an
 * isolate that dies in a window held is lost, like a tail event the platform does not retry:
 * the reports are best effort by nature (src/audit/tail.ts), and the record then says
 * `cpu_report: "none"`.
 */
import type { UsageReport } from "./tail-reports.ts";

/** How long the first report of a window waits for others. A report reaches the store no sooner. */
export const USAGE_LINGER_MS = 100;

/**
 * A window open this long has lost its opener (an invocation the platform ended before its
 * timer fired): the next report opens a new one, which sends what the old one held.
 */
export const STALE_WINDOW_MS = 10 * USAGE_LINGER_MS;

/** Reports per message: ~120 bytes each as JSON, far under a queue message's limit (MAX_MESSAGE_BYTES). */
export const MAX_REPORTS_PER_MESSAGE = 400;

export type SendReports = (reports: UsageReport[], expiresAt: number) => Promise<unknown>;

export class UsageBatch {
  #pending: UsageReport[] = [];
  #expiresAt = 0;
  /** When the open window was opened (undefined: none is open). */
  #openedAt: number | undefined;
  readonly #lingerMs: number;
  readonly #now: () => number;

  constructor(lingerMs = USAGE_LINGER_MS, now: () => number = Date.now) {
    this.#lingerMs = lingerMs;
    this.#now = now;
  }

  /** Reports waiting in this isolate. */
  get pending(): number {
    return this.#pending.length;
  }

  /**
   * Adds reports kept until `expiresAt`. Resolves at once when a window is open (its opener
   * sends them), else after this call has opened a window and sent it with its own `send`; a
   * full batch is sent by the call that filled it.
   */
  async add(reports: readonly UsageReport[], expiresAt: number, send: SendReports): Promise<void> {
    if (reports.length === 0) return;
    this.#pending.push(...reports);
    this.#expiresAt = Math.max(this.#expiresAt, expiresAt);
    if (this.#pending.length >= MAX_REPORTS_PER_MESSAGE) return this.#flush(send);
    const now = this.#now();
    if (this.#openedAt !== undefined && now - this.#openedAt < STALE_WINDOW_MS) return;
    this.#openedAt = now;
    await new Promise((r) => setTimeout(r, this.#lingerMs));
    if (this.#openedAt === now) this.#openedAt = undefined;
    await this.#flush(send);
  }

  async #flush(send: SendReports): Promise<void> {
    const reports = this.#pending.splice(0);
    const expiresAt = this.#expiresAt;
    this.#expiresAt = 0;
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < reports.length; i += MAX_REPORTS_PER_MESSAGE)
      sends.push(send(reports.slice(i, i + MAX_REPORTS_PER_MESSAGE), expiresAt));
    await Promise.all(sends);
  }
}
