/**
 * Counts of what happens at the edge where no execution record says it: rate-limit refusals
 * (no execution exists) and calls whose intent the verifier could not decide (level 2 skipped
 * or refused by the operator's VERIFIER_FAILURE_POLICY). Each isolate counts them and sends the
 * counts to the audit queue at most once a second (or every 100), as one message with a unique
 * id, so that a redelivered message is not counted twice; the consumer folds them into the
 * tables /metrics reads. Counts still waiting when an isolate goes away are lost; the queue
 * holds the rest.
 */
import type { AuditMessage } from "./messages.ts";

const FLUSH_MS = 1_000;
const FLUSH_AT = 100;

type Counted<M> = M extends { counts: (infer C)[] } ? Omit<C, "n"> : never;
type CountMessage = Extract<AuditMessage, { counts: unknown[] }>;

class EdgeCounter<M extends CountMessage> {
  #pending = new Map<string, Counted<M> & { n: number }>();
  #total = 0;
  #scheduled: Promise<void> | undefined;
  readonly #kind: M["kind"];

  constructor(kind: M["kind"]) {
    this.#kind = kind;
  }

  count(env: Env, waitUntil: (p: Promise<unknown>) => void, what: Counted<M>): void {
    if (!env.AUDIT_QUEUE) return;
    const key = Object.values(what).join("\u0000");
    const entry = this.#pending.get(key) ?? { ...what, n: 0 };
    entry.n++;
    this.#pending.set(key, entry);
    this.#total++;
    if (this.#total >= FLUSH_AT) {
      waitUntil(this.#flush(env));
      return;
    }
    this.#scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, FLUSH_MS)).then(() => this.#flush(env));
    waitUntil(this.#scheduled);
  }

  async #flush(env: Env): Promise<void> {
    this.#scheduled = undefined;
    const counts = [...this.#pending.values()];
    this.#pending = new Map();
    this.#total = 0;
    if (counts.length === 0) return;
    try {
      await env.AUDIT_QUEUE!.send({ kind: this.#kind, id: crypto.randomUUID(), counts });
    } catch (err) {
      console.warn(JSON.stringify({ msg: `${this.#kind} counts lost`, error: String(err) }));
    }
  }
}

const refusals = new EdgeCounter<Extract<AuditMessage, { kind: "refusals" }>>("refusals");
const unverified = new EdgeCounter<Extract<AuditMessage, { kind: "intent_unverified" }>>("intent_unverified");

export function countRefusal(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  r: { tenant: string; tool: string; reason: string },
): void {
  refusals.count(env, waitUntil, r);
}

/** A call whose intent the verifier did not decide: `action` is what the operator's policy did with it. */
export function countIntentUnverified(
  env: Env,
  waitUntil: (p: Promise<unknown>) => void,
  u: { effect: string; reason: string; action: string },
): void {
  unverified.count(env, waitUntil, u);
}
