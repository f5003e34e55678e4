/**
 * An execution object's storage, in the object's synchronous key-value store (SQLite-backed):
 * no tables to create, one row per put. What recovery needs and no more (each write before the provider call is a commit on the hot path):
 *   "r"           the record: written when the execution starts and when it ends (and at each
 *                 step of a wait)
 *   "p"           the plan, only while the execution waits (docs/contract.md#waiting): what it will run once a
 *                 person, its tenant or its provider lets it, so a restart loses nothing
 *   "k"           where this object's idempotency key points, once it points elsewhere
 *   "e:<seq>"     each emitted event (the `start` and terminal events are views of the record)
 *   "u:<attempt>" a provider invocation's CPU report, which arrives after the fact (src/execution/usage.ts)
 */
import type { ExecutionEvent, Value } from "../src/contract.ts";
import { PartialOutput } from "../src/execution/partial-output.ts";
import type { PartialMerge } from "../providers/sdk/protocol.ts";
import type { ExecutionRecord } from "../src/execution/record.ts";
import type { AttemptUsage } from "../src/execution/usage.ts";
import type { ExecutionPlan } from "../src/execution/execution-plan.ts";
import type { KeyBinding } from "../src/execution/keyed-start.ts";

/** Events read per page when replaying, so a long log is never loaded at once. */
export const REPLAY_PAGE = 200;

const eventKey = (seq: number) => `e:${String(seq).padStart(12, "0")}`;

export class ExecutionStore {
  readonly #kv: SyncKvStorage;

  constructor(kv: SyncKvStorage) {
    this.#kv = kv;
  }

  record(): ExecutionRecord | undefined {
    return this.#kv.get<ExecutionRecord>("r");
  }

  saveRecord(record: ExecutionRecord): void {
    this.#kv.put("r", record);
  }

  plan(): ExecutionPlan | undefined {
    return this.#kv.get<ExecutionPlan>("p");
  }

  savePlan(plan: ExecutionPlan): void {
    this.#kv.put("p", plan);
  }

  dropPlan(): void {
    this.#kv.delete("p");
  }

  key(): KeyBinding | undefined {
    return this.#kv.get<KeyBinding>("k");
  }

  saveKey(binding: KeyBinding): void {
    this.#kv.put("k", binding);
  }

  /** CPU reports this object kept before reports moved to the audit store (src/audit/tail.ts). */
  usage(): AttemptUsage[] {
    return [...this.#kv.list<number | null>({ prefix: "u:" })].map(([key, cpu_ms]) => ({
      attempt: Number(key.slice(2)),
      cpu_ms,
    }));
  }

  appendEvent(event: ExecutionEvent): void {
    this.#kv.put(eventKey(event.seq), { type: event.type, data: event.data, at: event.at });
  }

  /** Stored events after `after`, at most `limit`, in order. */
  events(after: number, limit = REPLAY_PAGE): ExecutionEvent[] {
    const out: ExecutionEvent[] = [];
    for (const [key, value] of this.#kv.list<{ type: string; data: unknown; at: number }>({
      prefix: "e:",
      startAfter: eventKey(after),
      limit,
    })) {
      out.push({ seq: Number(key.slice(2)), ...value });
    }
    return out;
  }

  /** The highest stored event number and the partial output the stored events make (recovering a lost run). */
  scan(rule: PartialMerge): { lastSeq: number; partial: Value } {
    let lastSeq = 0;
    const partial = new PartialOutput(rule);
    for (const [key, value] of this.#kv.list<{ type: string; data: unknown }>({ prefix: "e:" })) {
      lastSeq = Number(key.slice(2));
      if (value.type === "partial") partial.add(value.data);
    }
    return { lastSeq, partial: partial.value() as Value };
  }
}
